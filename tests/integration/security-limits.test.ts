import type { TranscriptListItem } from '@chronicler/contracts';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeepgramPeer, type DeepgramPeer } from '../peers/deepgram.ts';
import { apiCall } from '../support/api.ts';
import { wav } from '../support/audio.ts';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';

/**
 * Sends `bytes` of JSON as a client does: all of it, then reads the answer. What it saw:
 * the status and body, or the error that cut it short (a broken pipe, a reset).
 */
function postWhole(
  url: string,
  token: string,
  bytes: number,
): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = http.request(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'content-length': String(bytes),
      },
    });
    let failed = false;
    req.on('error', (err: NodeJS.ErrnoException) => {
      failed = true;
      resolve({ error: err.code ?? err.message });
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        if (!failed) resolve({ status: res.statusCode ?? 0, body });
      });
    });
    // {"name":"xxxx...."}: valid JSON, just far too much of it.
    const head = Buffer.from('{"name":"');
    const tail = Buffer.from('"}');
    const chunk = Buffer.alloc(64 * 1024, 'x');
    let left = bytes - head.length - tail.length;
    req.write(head);
    const pump = () => {
      while (left > 0 && !failed) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      if (!failed) req.end(tail);
    };
    pump();
  });
}

describe(`smaller limits: unconfigured OAuth, oversized bodies and form fields (${testMode} mode)`, () => {
  let system: TestSystem;
  let deepgram: DeepgramPeer;
  let token: string;

  beforeAll(async () => {
    deepgram = await startDeepgramPeer();
    // Neither Discord nor Google, and no PUBLIC_URL: in cluster mode the OAuth routes used to answer 500.
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true', ...deepgram.env() } });
    token = (await localSignIn(system.url, 'limits-user')).cookie;
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
    await deepgram?.close();
  });

  it('answers 404 with the reason on the OAuth routes of a provider that is not configured', async () => {
    for (const [provider, name] of [
      ['discord', 'Discord'],
      ['google', 'Google'],
    ] as const) {
      for (const path of [`/api/auth/${provider}/login`, `/api/auth/${provider}/callback?code=x&state=y`]) {
        const res = await fetch(`${system.url}${path}`, { redirect: 'manual' });
        expect(res.status, path).toBe(404);
        expect(await res.json()).toEqual({
          detail: `Sign-in with ${name} is not configured on this server.`,
        });
      }
    }
  });

  it('a client that sends a 15 MB JSON body whole gets the 413 and its message, not a broken pipe, and nothing is created', async () => {
    const answer = await postWhole(`${system.url}/api/groups`, token, 15 * 1024 * 1024);
    expect(answer).toEqual({ status: 413, body: JSON.stringify({ detail: 'The request is too large.' }) });
    const groups = await apiCall<unknown[]>(system.url, 'GET', '/groups', token);
    expect(groups.body).toEqual([]);
  }, 60_000);

  it('refuses a form field over 64 KB with a message instead of cutting it, and stores nothing', async () => {
    const upload = async (fields: Record<string, string>) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      form.append('audio', new Blob([wav(48_000)], { type: 'audio/wav' }), 'session.wav');
      const res = await fetch(`${system.url}/api/transcripts/manual-audio`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const base = { name: 'Session 3', session_date: '2015-03-12T00:00:00.000Z' };
    // Cut at 64 KB this would still read as a date.
    const longDate = await upload({ ...base, session_date: `${base.session_date}${' '.repeat(70 * 1024)}` });
    expect(longDate).toEqual({
      status: 400,
      body: { detail: "The form field 'session_date' is too long (at most 64 KB)." },
    });
    const list = await apiCall<TranscriptListItem[]>(system.url, 'GET', '/transcripts', token);
    expect(list.body).toEqual([]);
  }, 60_000);
});
