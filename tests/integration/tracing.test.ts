import { LIVE_INGEST_KEY_FILE, type TranscriptListItem } from '@chronicler/contracts';
import { httpSink } from '@chronicler/voice-bot/replay';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

// One trace from the gateway's HTTP request, over the bus, to the transcript service's
// handler and its database queries, as a real collector would receive it: the processes run
// as in production (one per service in cluster mode, the embedded runner in embedded mode)
// and export over OTLP/HTTP to a receiver started here.

/** OTLP/JSON as @opentelemetry/exporter-trace-otlp-http posts it (ids in hex). */
interface OtlpValue {
  stringValue?: string;
  intValue?: number | string;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: OtlpAttribute[];
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: { scope?: { name?: string }; spans?: OtlpSpan[] }[];
  }[];
}

/** A received span with its process's service name and its attributes as a plain object. */
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: 'internal' | 'server' | 'client' | 'producer' | 'consumer' | 'unspecified';
  service: string;
  scope: string;
  attributes: Record<string, string | number | boolean | undefined>;
}

const KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'] as const;

function attributesOf(list: OtlpAttribute[] | undefined): Span['attributes'] {
  const out: Span['attributes'] = {};
  for (const a of list ?? []) {
    const v = a.value;
    out[a.key] = v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : v.boolValue);
  }
  return out;
}

/** A local OTLP/HTTP trace receiver: POST /v1/traces with a JSON body. */
async function startReceiver(): Promise<{
  url: string;
  spans: Span[];
  errors: string[];
  close(): Promise<void>;
}> {
  const spans: Span[] = [];
  const errors: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const type = req.headers['content-type'] ?? '';
      if (!type.includes('json')) {
        errors.push(`unexpected content-type ${type}`);
        res.writeHead(415).end();
        return;
      }
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
        for (const rs of body.resourceSpans ?? []) {
          const service = String(attributesOf(rs.resource?.attributes)['service.name'] ?? '');
          for (const ss of rs.scopeSpans ?? []) {
            for (const s of ss.spans ?? []) {
              spans.push({
                traceId: s.traceId,
                spanId: s.spanId,
                ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
                name: s.name,
                kind: KINDS[s.kind] ?? 'unspecified',
                service,
                scope: ss.scope?.name ?? '',
                attributes: attributesOf(s.attributes),
              });
            }
          }
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } catch (err) {
        errors.push(String(err));
        res.writeHead(400).end();
      }
    });
  });
  // The exporter keeps its connection alive between batches; a server that closes an idle
  // socket after Node's default 5 s can close it just as the next batch is written (the batch
  // is then lost or retried late). A collector keeps connections open longer than that.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    errors,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The chain of spans from `span` up to the root of its trace (as far as received). */
function ancestors(spans: Span[], span: Span): Span[] {
  const byId = new Map(spans.filter((s) => s.traceId === span.traceId).map((s) => [s.spanId, s]));
  const out: Span[] = [];
  for (
    let p = span.parentSpanId && byId.get(span.parentSpanId);
    p;
    p = p.parentSpanId && byId.get(p.parentSpanId)
  ) {
    out.push(p);
  }
  return out;
}

const urlPathOf = (s: Span): string => String(s.attributes['url.path'] ?? s.attributes['http.target'] ?? '');

const INGEST_KEY = randomBytes(24).toString('base64url');

describe(`tracing across the bus (${testMode} mode)`, () => {
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let system: TestSystem;
  let token: string;
  let userId: string;

  beforeAll(async () => {
    receiver = await startReceiver();
    system = await startSystem({
      processes: 'many',
      env: {
        AUTH_LOCAL_ENABLED: 'true',
        SUMMARY_AUTOMATIC: 'false',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        // export every 100 ms instead of every 5 s, so the test waits for spans, not for a timer
        OTEL_BSP_SCHEDULE_DELAY: '100',
        ...(testMode === 'cluster' ? { LIVE_INGEST_KEY: INGEST_KEY } : {}),
      },
    });
    const signedIn = await localSignIn(system.url, 'tracer');
    token = signedIn.cookie;
    userId = signedIn.body.user?.id ?? '';
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
    await receiver?.close();
  });

  // The service names the spans come from: one process in embedded mode, one per service in cluster mode.
  const gatewayService = () => (testMode === 'embedded' ? 'chronicler-all-in-one' : 'chronicler-gateway');
  const transcriptService = () =>
    testMode === 'embedded' ? 'chronicler-all-in-one' : 'chronicler-transcript';

  /**
   * Waits for `complete` (40 s: the spans of a busy machine's export come in batches); on
   * timeout, the error says what was missing and lists what did arrive.
   */
  async function waitForTrace(what: string, complete: () => boolean, missing = () => ''): Promise<void> {
    try {
      await waitFor(complete, 40_000);
    } catch {
      const seen = [
        ...new Set(receiver.spans.map((s) => `${s.service}: ${s.kind} ${s.name} ${urlPathOf(s)}`)),
      ];
      throw new Error(
        `no complete trace of ${what} (${missing()}; export errors: ${receiver.errors.join(', ') || 'none'}); ` +
          `spans received: ${seen.join(' | ')}`,
      );
    }
  }

  /**
   * Waits until the HTTP server span of `method path` and the spans under it (down to a
   * db.query of the handler named `handler`) have arrived, and returns that trace.
   */
  async function traceOf(method: string, path: string, handler: string) {
    let found: { http: Span; client: Span; server: Span; queries: Span[] } | undefined;
    const complete = () => {
      const spans = receiver.spans;
      for (const h of spans) {
        if (h.kind !== 'server' || h.service !== gatewayService() || urlPathOf(h) !== path) continue;
        if (String(h.attributes['http.request.method'] ?? h.attributes['http.method']) !== method) continue;
        const inTrace = spans.filter((s) => s.traceId === h.traceId);
        const server = inTrace.find((s) => s.name === `process ${handler}` && s.kind === 'server');
        const client = server && inTrace.find((s) => s.spanId === server.parentSpanId);
        const queries = server
          ? inTrace.filter((s) => s.name === 'db.query' && ancestors(spans, s).includes(server))
          : [];
        if (server && client && queries.length > 0) {
          found = { http: h, client, server, queries };
          return true;
        }
      }
      return false;
    };
    await waitForTrace(`${method} ${path}`, complete);
    return found!;
  }

  it('carries one trace from the gateway request over the bus to the transcript handler and its queries', async () => {
    const secret = `The Sunken Temple ${randomUUID()}`;
    const created = await apiCall<TranscriptListItem>(system.url, 'POST', '/transcripts/manual', token, {
      name: secret,
      session_date: '2015-03-12T00:00:00.000Z',
      transcript: `MATT: ${secret} rises from the sea.`,
    });
    expect(created.status).toBe(200);

    const {
      http: httpSpan,
      client,
      server,
      queries,
    } = await traceOf('POST', '/api/transcripts/manual', 'svc.transcript.create-manual');
    expect(receiver.errors).toEqual([]);

    // the gateway's HTTP server span is the root of the trace: the request came from outside
    expect(httpSpan.parentSpanId).toBeUndefined();
    expect(httpSpan.scope).toBe('@opentelemetry/instrumentation-http');
    // the bus request: a client span in the gateway under its HTTP span ...
    expect(client).toMatchObject({
      name: 'send svc.transcript.create-manual',
      kind: 'client',
      service: gatewayService(),
      traceId: httpSpan.traceId,
    });
    expect(ancestors(receiver.spans, client)).toContain(httpSpan);
    expect(client.attributes['messaging.destination.name']).toBe('svc.transcript.create-manual');
    // ... answered by the transcript service in a server span whose parent travelled in the headers
    expect(server).toMatchObject({
      kind: 'server',
      service: transcriptService(),
      parentSpanId: client.spanId,
    });
    // ... whose database statements are db.query spans under it, with the statement but no values
    const insert = queries.find((q) => q.attributes['db.operation.name'] === 'INSERT');
    expect(insert, `queries: ${queries.map((q) => q.attributes['db.query.text']).join(' | ')}`).toBeDefined();
    for (const q of queries) {
      expect(q).toMatchObject({ kind: 'client', service: transcriptService(), traceId: httpSpan.traceId });
      expect(q.attributes['db.system.name']).toBe('postgresql');
      expect(String(q.attributes['db.query.text'])).toMatch(/\S/);
      expect(JSON.stringify(q.attributes)).not.toContain(secret);
    }
    expect(String(insert!.attributes['db.query.text'])).toMatch(/\$1/);

    // reading it back is a trace of its own, with the same shape
    const read = await apiCall(system.url, 'GET', `/transcripts/${created.body.id}`, token);
    expect(read.status).toBe(200);
    const get = await traceOf('GET', `/api/transcripts/${created.body.id}`, 'svc.transcript.get-if-changed');
    expect(get.http.traceId).not.toBe(httpSpan.traceId);
    expect(get.server.parentSpanId).toBe(get.client.spanId);
    expect(get.queries.map((q) => q.attributes['db.operation.name'])).toContain('SELECT');
  });

  it('carries the trace of a live utterance from its ingest over the durable stream to the stored line', async () => {
    const machineKey =
      testMode === 'cluster'
        ? INGEST_KEY
        : readFileSync(path.join(system.env.DATA_DIR!, LIVE_INGEST_KEY_FILE), 'utf8').trim();
    const sink = httpSink(system.url, machineKey);
    const { transcriptId } = await sink.start({ owner_id: userId, name: 'Traced live session' });
    const line = `Roll for initiative ${randomUUID()}`;
    await sink.send(transcriptId, [
      {
        utterance_id: 'u1',
        text: line,
        speaker_tag: 'MATT',
        start_seconds: 0,
        end_seconds: 2,
        final_index: 1,
        is_final: true,
      },
    ]);
    const subject = `live.${transcriptId}.final`;
    const ingestPath = `/api/live-ingest/sessions/${transcriptId}/utterances`;

    let found: { http: Span; producer: Span; consumer: Span; queries: Span[] } | undefined;
    let missing = 'no producer span';
    await waitForTrace(
      `the final on ${subject}`,
      () => {
        const spans = receiver.spans;
        const producer = spans.find(
          (s) => s.kind === 'producer' && s.attributes['messaging.destination.name'] === subject,
        );
        if (!producer) return false;
        // live-fanout consumes the same subject beside the transcript service (in embedded mode
        // from the same process, so the same service name): the transcript service's consumer
        // is the one of its durable, and a redelivery makes another such span.
        const consumers = spans.filter(
          (s) =>
            s.kind === 'consumer' &&
            s.service === transcriptService() &&
            s.parentSpanId === producer.spanId &&
            s.attributes['messaging.destination.name'] === subject &&
            s.attributes['messaging.consumer.group.name'] === 'transcript-live',
        );
        const httpSpan = ancestors(spans, producer).find(
          (s) => s.kind === 'server' && urlPathOf(s) === ingestPath,
        );
        const withQueries = consumers
          .map((consumer) => ({
            consumer,
            queries: spans.filter((s) => s.name === 'db.query' && ancestors(spans, s).includes(consumer)),
          }))
          .find((c) => c.queries.length > 0);
        missing = !httpSpan
          ? 'no ingest request span above the producer'
          : consumers.length === 0
            ? 'no transcript-live consumer span under the producer'
            : !withQueries
              ? 'no db.query under the transcript-live consumer'
              : '';
        if (!httpSpan || !withQueries) return false;
        found = { http: httpSpan, producer, ...withQueries };
        return true;
      },
      () => missing,
    );
    const { http: httpSpan, producer, consumer, queries } = found!;
    // the gateway's ingest request published the final durably, in its own trace ...
    expect(producer).toMatchObject({ service: gatewayService(), traceId: httpSpan.traceId });
    // ... and the transcript service's durable consumer continued that trace, down to its queries
    expect(consumer.name).toMatch(/^process .+\/transcript-live$/);
    expect(consumer.attributes['messaging.consumer.group.name']).toBe('transcript-live');
    // the line is stored by one statement (a CTE that locks the session and inserts the line)
    expect(queries.some((q) => /\binsert into\b/i.test(String(q.attributes['db.query.text'])))).toBe(true);
    for (const q of queries) {
      expect(q.traceId).toBe(httpSpan.traceId);
      expect(JSON.stringify(q.attributes)).not.toContain(line);
    }
    await sink.end(transcriptId, { final_count: 1, interim_count: 0 });
  });
});
