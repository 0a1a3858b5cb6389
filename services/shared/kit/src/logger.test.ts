import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';

function capture(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe('createLogger', () => {
  it('writes one JSON line per event with the service, level name, ISO time and child ids', () => {
    const out = capture();
    const log = createLogger('transcript', { destination: out.stream });
    log.child({ reqId: 'req-1' }).info({ msgId: 'm-9' }, 'renamed');
    const [line] = out.lines();
    expect(line).toMatchObject({
      service: 'transcript',
      level: 'info',
      reqId: 'req-1',
      msgId: 'm-9',
      msg: 'renamed',
    });
    expect(new Date(String(line?.time)).toISOString()).toBe(line?.time);
  });

  it('never writes tokens, cookies or authorization headers', () => {
    const out = capture();
    const log = createLogger('gateway', { destination: out.stream });
    log.info(
      {
        req: {
          headers: { authorization: 'Bearer secret', cookie: 'access_token=secret', 'auth-token': 'secret' },
        },
      },
      'request',
    );
    log.info({ session: { token: 'secret' } }, 'issued');
    expect(JSON.stringify(out.lines())).not.toContain('secret');
  });

  it('names no service on the embedded root logger, so children name theirs once', () => {
    const out = capture();
    createLogger(null, { destination: out.stream }).child({ service: 'auth' }).warn('x');
    expect(out.lines()[0]).toMatchObject({ service: 'auth' });
    expect(JSON.stringify(out.lines()[0]).match(/"service"/g)).toHaveLength(1);
  });
});
