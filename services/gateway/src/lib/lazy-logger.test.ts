import { createLogger, type Logger } from '@chronicler/kit';
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { RequestLogController } from '../plugins/request-log.ts';
import { lazyChildLogger } from './lazy-logger.ts';

function setup(level: string) {
  const lines: Record<string, unknown>[] = [];
  const root = createLogger('gateway', {
    level,
    destination: { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) },
  });
  const childSpy = vi.spyOn(root as Logger, 'child');
  return { root, lines, childSpy };
}

describe('lazy per-request logger', () => {
  it('makes no child logger for a request that writes nothing', async () => {
    const { root, childSpy } = setup('info');
    const app = Fastify({
      loggerInstance: root as FastifyBaseLogger,
      childLoggerFactory: lazyChildLogger,
      logController: new RequestLogController(),
    });
    app.get('/x', async (req) => {
      req.log.debug('not written at info');
      return { ok: true };
    });
    // fastify may make children of its own at start (plugins); count only those per request.
    await app.ready();
    const before = childSpy.mock.calls.length;
    for (let i = 0; i < 3; i++) expect((await app.inject({ url: '/x' })).statusCode).toBe(200);
    expect(childSpy.mock.calls.length).toBe(before);
    await app.close();
  });

  it('writes an enabled line with the request id, through one child made on first use', async () => {
    const { root, lines } = setup('info');
    const app = Fastify({
      loggerInstance: root as FastifyBaseLogger,
      childLoggerFactory: lazyChildLogger,
      logController: new RequestLogController(),
    });
    app.get('/x', async (req) => {
      req.log.warn({ n: 1 }, 'first');
      req.log.info('second');
      expect((req.log as Logger).isLevelEnabled('debug')).toBe(false);
      return { ok: true };
    });
    await app.inject({ url: '/x' });
    await app.close();
    const mine = lines.filter((l) => l.msg === 'first' || l.msg === 'second');
    expect(mine).toHaveLength(2);
    expect(mine[0]).toMatchObject({ level: 'warn', n: 1, service: 'gateway' });
    expect(typeof mine[0]!.reqId).toBe('string');
    expect(mine[1]!.reqId).toBe(mine[0]!.reqId);
  });
});
