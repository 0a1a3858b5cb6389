import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, redactUrl } from './logger.ts';

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

  it('blanks credential query parameters in request and url fields, keeping the rest of the URL', () => {
    const out = capture();
    const log = createLogger('gateway', { destination: out.stream });
    // What fastify passes for its "incoming request" line: the request, socket included.
    const req = {
      method: 'GET',
      url: '/api/ws/chat?transcript_id=t-1&token=eyJsecret.sig&TOKEN=s2',
      ip: '10.0.0.9',
      host: 'chronicler.example',
      socket: { remoteAddress: '127.0.0.1', remotePort: 5555 },
      headers: { authorization: 'Bearer secret' },
    };
    log.info({ req }, 'incoming request');
    log.info({ url: '/api/auth/discord/callback?code=secret-code&state=secret-state' }, 'callback');
    log.info({ req: { url: '/login?credential=secret-cred&password=secret-pw&next=%2F' } }, 'plain');
    log.info(
      { body: { username: 'ann', password: 'secret-pw' }, err: { details: { token: 'secret' } } },
      'x',
    );
    const text = JSON.stringify(out.lines());
    expect(text).not.toContain('secret');
    const [first, second, third] = out.lines();
    expect(first?.req).toEqual({
      method: 'GET',
      url: '/api/ws/chat?transcript_id=t-1&token=[REDACTED]&TOKEN=[REDACTED]',
      host: 'chronicler.example',
      remoteAddress: '10.0.0.9',
      remotePort: 5555,
    });
    expect(second?.url).toBe('/api/auth/discord/callback?code=[REDACTED]&state=[REDACTED]');
    expect(third?.req).toEqual({ url: '/login?credential=[REDACTED]&password=[REDACTED]&next=%2F' });
  });

  it('redactUrl leaves URLs without credentials alone and reads encoded parameter names', () => {
    expect(redactUrl('/api/transcripts?after=abc')).toBe('/api/transcripts?after=abc');
    expect(redactUrl('/api/health')).toBe('/api/health');
    expect(redactUrl('/x?%74oken=abc&a=1#frag')).toBe('/x?%74oken=[REDACTED]&a=1#frag');
    expect(redactUrl('/x?token')).toBe('/x?token=[REDACTED]');
  });

  it('redactUrl and every log line drop the user info of URLs, wherever they are', () => {
    expect(redactUrl('nats://tok3n@nats:4222')).toBe('nats://[REDACTED]@nats:4222');
    expect(redactUrl('nats://a:p1@n1:4222, nats://b:p2@n2:4222')).toBe(
      'nats://[REDACTED]@n1:4222, nats://[REDACTED]@n2:4222',
    );
    expect(redactUrl('postgres://chronicler:pw@db:5432/chronicler?sslmode=require&password=x')).toBe(
      'postgres://[REDACTED]@db:5432/chronicler?sslmode=require&password=[REDACTED]',
    );
    expect(redactUrl('redis://:pw@redis:6379/0')).toBe('redis://[REDACTED]@redis:6379/0');
    expect(redactUrl('https://api.example/v1')).toBe('https://api.example/v1');
    const out = capture();
    const log = createLogger('x', { destination: out.stream });
    log.error(
      { err: new Error('Cannot connect to postgres://u:hunter2@db:5432/x') },
      'at redis://:hunter3@r:6379',
    );
    const text = JSON.stringify(out.lines());
    expect(text).not.toMatch(/hunter/);
    expect(text).toContain('postgres://[REDACTED]@db:5432/x');
  });

  it('names no service on the embedded root logger, so children name theirs once', () => {
    const out = capture();
    createLogger(null, { destination: out.stream }).child({ service: 'auth' }).warn('x');
    expect(out.lines()[0]).toMatchObject({ service: 'auth' });
    expect(JSON.stringify(out.lines()[0]).match(/"service"/g)).toHaveLength(1);
  });
});
