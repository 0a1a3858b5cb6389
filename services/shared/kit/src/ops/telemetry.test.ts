import { trace } from '@opentelemetry/api';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { startTelemetry, stopTelemetry } from './telemetry.ts';

describe('startTelemetry', () => {
  const received: { url: string; body: string }[] = [];
  // A stand-in OTLP/HTTP collector: records what the exporter posts.
  const collector = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', body: Buffer.concat(chunks).toString('latin1') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  afterAll(async () => {
    await stopTelemetry();
    await new Promise((r) => collector.close(r));
  });

  it('does nothing without OTEL_EXPORTER_OTLP_ENDPOINT', async () => {
    expect(await startTelemetry('quiet', {})).toBe(false);
  });

  it('exports spans over OTLP/HTTP under the service name when the endpoint is set', async () => {
    await new Promise<void>((r) => collector.listen(0, '127.0.0.1', r));
    const endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    // The exporter reads the endpoint from the environment, as it would in a pod.
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
    try {
      expect(await startTelemetry('transcript', process.env)).toBe(true);
      trace.getTracer('test').startActiveSpan('rename-transcript', (span) => span.end());
      await stopTelemetry(); // flushes
    } finally {
      delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    }
    const traces = received.filter((r) => r.url === '/v1/traces');
    expect(traces.length).toBeGreaterThan(0);
    const body = traces.map((t) => t.body).join('');
    expect(body).toContain('chronicler-transcript');
    expect(body).toContain('rename-transcript');
  });
});
