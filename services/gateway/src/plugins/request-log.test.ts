import { createLogger } from '@chronicler/kit';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { RequestLogController } from './request-log.ts';

async function linesFor(level: string, url: string): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const app = Fastify({
    loggerInstance: createLogger('gateway', {
      level,
      destination: { write: (line: string) => void lines.push(line) },
    }) as FastifyBaseLogger,
    logController: new RequestLogController(),
  });
  app.get('/api/things', async () => ({ ok: true }));
  await app.inject({ method: 'GET', url });
  await app.close();
  return lines.map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('request log', () => {
  it('writes exactly one line per request at debug, with status and time, credentials blanked', async () => {
    const lines = await linesFor('debug', '/api/things?token=secret-value');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'debug',
      msg: 'request completed',
      method: 'GET',
      url: '/api/things?token=[REDACTED]',
      statusCode: 200,
    });
    expect(typeof lines[0]!.responseTime).toBe('number');
    expect(JSON.stringify(lines)).not.toContain('secret-value');
  });

  it('writes one line for a route that does not exist', async () => {
    const lines = await linesFor('debug', '/nowhere');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ msg: 'request completed', statusCode: 404 });
  });

  it('writes nothing per request at info', async () => {
    expect(await linesFor('info', '/api/things')).toEqual([]);
    expect(await linesFor('info', '/nowhere')).toEqual([]);
  });
});
