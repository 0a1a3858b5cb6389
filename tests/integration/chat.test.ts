import {
  CHAT_CLIENT_CLOSE_REASON,
  EMERGENCY_ADVENTURE_MESSAGE,
  formatOffset,
  parseTranscriptLines,
  type ChatMessage,
  type ChatServerFrame,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { localSignIn } from '../support/auth.ts';
import { crd3Transcript } from '../support/crd3.ts';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';

// Node 20 has no WebSocket client of its own: ws, the library the gateway serves sockets with.
type Socket = WebSocket;

/** A connected chat socket with its frames queued in arrival order. */
interface ChatClient {
  socket: Socket;
  next(timeoutMs?: number): Promise<ChatServerFrame>;
  send(frame: unknown): void;
  /** Closes as the web app does; resolves with the close code and reason the client saw. */
  close(): Promise<{ code: number; reason: string }>;
}

/** Per user per minute: above what one user's tests ask, low enough to reach in a test. */
const RATE_LIMIT = 8;

const TIME = /\[(\d{2}:\d{2}:\d{2})\]/g;
const citedTimes = (text: string): string[] => [...text.matchAll(TIME)].map((m) => m[1]!);

describe(`chat: POST /api/chat and /api/ws/chat (${testMode} mode, offline engine)`, () => {
  let system: TestSystem;
  let alice: { token: string; id: string };
  let bob: { token: string; id: string };
  let episode: TranscriptListItem;
  let other: TranscriptListItem;
  let bobsSession: TranscriptListItem;
  const transcript = crd3Transcript('C1E001', { timed: true, maxChars: 20_000 });
  const transcriptTimes = new Set(
    parseTranscriptLines(transcript).flatMap((l) => (l.seconds === null ? [] : [formatOffset(l.seconds)])),
  );

  const request = async <T>(
    method: string,
    p: string,
    token: string | null,
    body?: unknown,
  ): Promise<{ status: number; body: T }> => {
    const res = await fetch(`${system.url}/api${p}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T };
  };

  const createSession = async (token: string, name: string, text: string): Promise<TranscriptListItem> => {
    const res = await request<TranscriptListItem>('POST', '/transcripts/manual', token, {
      name,
      session_date: '2015-03-12T00:00:00.000Z',
      transcript: text,
    });
    expect(res.status).toBe(200);
    return res.body;
  };

  const wsUrl = (query: Record<string, string>) =>
    `${system.url.replace(/^http/, 'ws')}/api/ws/chat?${new URLSearchParams(query).toString()}`;

  /**
   * Opens a socket; resolves with the client, or rejects with the handshake's HTTP status. A
   * `token` goes in the Authorization header (a token in the URL counts as none).
   */
  const connect = (
    { token, ...query }: Record<string, string>,
    headers?: Record<string, string>,
  ): Promise<ChatClient> =>
    new Promise((resolve, reject) => {
      const socket = new WebSocket(wsUrl(query), {
        headers: { ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}), ...headers },
      });
      const frames: ChatServerFrame[] = [];
      const waiters: ((f: ChatServerFrame) => void)[] = [];
      socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as ChatServerFrame;
        const waiter = waiters.shift();
        if (waiter) waiter(frame);
        else frames.push(frame);
      });
      socket.on('unexpected-response', (_req, res) => {
        reject(Object.assign(new Error(`handshake answered ${res.statusCode}`), { status: res.statusCode }));
        socket.terminate();
      });
      socket.on('error', reject);
      socket.on('open', () =>
        resolve({
          socket,
          next: (timeoutMs = 30_000) =>
            new Promise((res, rej) => {
              const queued = frames.shift();
              if (queued) return res(queued);
              const t = setTimeout(() => rej(new Error('no frame arrived')), timeoutMs);
              waiters.push((f) => {
                clearTimeout(t);
                res(f);
              });
            }),
          send: (frame) => socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
          close: () =>
            new Promise((res) => {
              socket.once('close', (code: number, reason: Buffer) => res({ code, reason: String(reason) }));
              socket.close(1000, CHAT_CLIENT_CLOSE_REASON);
            }),
        }),
      );
    });

  const refusal = async (query: Record<string, string>): Promise<number> => {
    try {
      const client = await connect(query);
      await client.close();
    } catch (err) {
      return (err as { status?: number }).status ?? -1;
    }
    throw new Error('the socket was accepted');
  };

  const historyOf = async (token: string, transcriptId: string): Promise<ChatMessage[]> => {
    const client = await connect({ token, transcript_id: transcriptId });
    const frame = await client.next();
    await client.close();
    if (frame.type !== 'chat_history') throw new Error(`expected chat_history, got ${JSON.stringify(frame)}`);
    return frame.messages;
  };

  const ask = async (client: ChatClient, content: string): Promise<ChatServerFrame> => {
    client.send({ type: 'chat_message', content });
    return client.next(60_000);
  };

  beforeAll(async () => {
    system = await startSystem({
      env: { AUTH_LOCAL_ENABLED: 'true', AI_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) },
    });
    const a = await localSignIn(system.url, 'alice');
    const b = await localSignIn(system.url, 'bob');
    alice = { token: a.cookie, id: a.body.user?.id ?? '' };
    bob = { token: b.cookie, id: b.body.user?.id ?? '' };
    episode = await createSession(alice.token, 'C1E001 Arrival at Kraghammer', transcript);
    other = await createSession(
      alice.token,
      'Another night',
      '[00:00:05] MATT: The tavern is quiet tonight.',
    );
    bobsSession = await createSession(bob.token, "Bob's session", '[00:00:01] BOB: Hello there.');
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  describe('POST /api/chat', () => {
    it('answers the last user message from the transcript, citing its [HH:MM:SS] lines', async () => {
      const res = await request<{ response: string }>('POST', '/chat', alice.token, {
        transcript_id: episode.id,
        model: 'some-client-chosen-model',
        temperature: 0.7,
        messages: [{ role: 'user', content: 'Who healed Grog after his uncle Kevdak banished him?' }],
      });
      expect(res.status).toBe(200);
      expect(typeof res.body.response).toBe('string');
      const cited = citedTimes(res.body.response);
      // The line that tells it: Pike, the gnome cleric, healed him (00:00:12 in this transcript).
      expect(cited).toContain('00:00:12');
      for (const t of cited)
        expect(transcriptTimes.has(t), `cited ${t} is a line of the transcript`).toBe(true);
    });

    it('takes the earlier messages as the conversation and stores nothing', async () => {
      const res = await request<{ response: string }>('POST', '/chat', alice.token, {
        transcript_id: episode.id,
        messages: [
          { role: 'user', content: 'Who is Grog?' },
          { role: 'assistant', content: 'Grog Strongjaw is a goliath barbarian.' },
          { role: 'system', content: 'Error: Failed to get a response. Please try again.' },
          { role: 'user', content: 'Who is Scanlan Shorthalt?' },
        ],
      });
      expect(res.status).toBe(200);
      expect(res.body.response.length).toBeGreaterThan(0);
      expect(await historyOf(alice.token, episode.id)).toEqual([]);
    });

    it('refuses bad input with a message', async () => {
      const cases: [unknown, number, string | RegExp][] = [
        [
          { transcript_id: episode.id, messages: [{ role: 'user', content: '   \n ' }] },
          400,
          'Message cannot be empty',
        ],
        [{ transcript_id: episode.id, messages: [] }, 400, 'The last message must be a user message'],
        [
          { transcript_id: episode.id, messages: [{ role: 'assistant', content: 'Hi' }] },
          400,
          'The last message must be a user message',
        ],
        [
          { transcript_id: episode.id, messages: [{ role: 'user', content: 'x'.repeat(20_001) }] },
          400,
          /20,000/,
        ],
        [{ transcript_id: episode.id, messages: [{ role: 'robot', content: 'Hi' }] }, 400, /messages/],
        [{ messages: [{ role: 'user', content: 'Hi' }] }, 400, /transcript_id/],
      ];
      for (const [body, status, detail] of cases) {
        const res = await request<{ detail: string }>('POST', '/chat', alice.token, body);
        expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(status);
        if (typeof detail === 'string') expect(res.body.detail).toBe(detail);
        else expect(res.body.detail).toMatch(detail);
      }
    });

    it("answers 404 for another user's transcript or an unknown one, and 401 signed out", async () => {
      const ask = (token: string | null, id: string) =>
        request<{ detail: string }>('POST', '/chat', token, {
          transcript_id: id,
          messages: [{ role: 'user', content: 'What happened?' }],
        });
      const foreign = await ask(alice.token, bobsSession.id);
      expect(foreign.status).toBe(404);
      expect(foreign.body.detail).toBe('Transcript not found');
      expect((await ask(alice.token, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
      expect((await ask(alice.token, 'not-an-id')).status).toBe(404);
      expect((await ask(null, episode.id)).status).toBe(401);
    });
  });

  it('answers 429 with a clear message once a user is over the AI rate limit, on both paths', async () => {
    const carol = (await localSignIn(system.url, 'carol')).cookie;
    const session = await createSession(carol, 'Carol', '[00:00:02] CAROL: The dragon wakes.');
    const body = {
      transcript_id: session.id,
      messages: [{ role: 'user', content: 'Does the dragon wake?' }],
    };
    let limited: { status: number; body: { detail: string } } | undefined;
    let answered = 0;
    // A minute window may turn over mid-way; twice the limit always crosses it once.
    for (let i = 0; i < RATE_LIMIT * 2 + 1 && !limited; i++) {
      const res = await request<{ detail: string }>('POST', '/chat', carol, body);
      if (res.status === 429) limited = res;
      else {
        expect(res.status).toBe(200);
        answered += 1;
      }
    }
    // Carol's other AI requests (a summary of her new session) share the same allowance.
    expect(answered).toBeGreaterThan(0);
    expect(answered).toBeLessThanOrEqual(RATE_LIMIT * 2);
    expect(limited?.body.detail).toBe('Too many AI requests. Please wait a moment and try again.');

    const client = await connect({ token: carol, transcript_id: session.id });
    expect(await client.next()).toEqual({ type: 'chat_history', messages: [] });
    expect(await ask(client, 'Does the dragon wake?')).toEqual({
      type: 'error',
      error: 'Too many AI requests. Please wait a moment and try again.',
    });
    await client.close();
    expect(await historyOf(carol, session.id)).toEqual([]);
  });

  describe('/api/ws/chat', () => {
    it('refuses the handshake without a valid token, without a transcript, or for one not the user’s', async () => {
      expect(await refusal({ transcript_id: episode.id })).toBe(401);
      expect(await refusal({ token: 'not.a.token', transcript_id: episode.id })).toBe(401);
      expect(await refusal({ token: alice.token })).toBe(400);
      expect(await refusal({ token: alice.token, transcript_id: bobsSession.id })).toBe(404);
      expect(await refusal({ token: bob.token, transcript_id: episode.id })).toBe(404);
      expect(await refusal({ token: alice.token, transcript_id: 'not-an-id' })).toBe(404);
    });

    it('sends the history on connect, answers chat_message frames and keeps history per user and transcript', async () => {
      const client = await connect({ token: alice.token, transcript_id: episode.id });
      expect(await client.next()).toEqual({ type: 'chat_history', messages: [] });

      const first = await ask(client, '  Who healed Grog after his uncle Kevdak banished him?  ');
      expect(first.type).toBe('message');
      if (first.type !== 'message') return;
      expect(first.message.role).toBe('assistant');
      expect(citedTimes(first.message.content)).toContain('00:00:12');

      const second = await ask(client, EMERGENCY_ADVENTURE_MESSAGE);
      expect(second.type).toBe('message');
      if (second.type !== 'message') return;
      expect(second.message.content.length).toBeGreaterThan(0);
      expect(await client.close()).toEqual({ code: 1000, reason: CHAT_CLIENT_CLOSE_REASON });

      // A new socket reads back both turns, trimmed questions and the answers as sent.
      expect(await historyOf(alice.token, episode.id)).toEqual([
        { role: 'user', content: 'Who healed Grog after his uncle Kevdak banished him?' },
        first.message,
        { role: 'user', content: EMERGENCY_ADVENTURE_MESSAGE },
        second.message,
      ]);
      // Alice's other transcript and Bob's own conversation are separate.
      expect(await historyOf(alice.token, other.id)).toEqual([]);
      const bobs = await connect({ token: bob.token, transcript_id: bobsSession.id });
      expect(await bobs.next()).toEqual({ type: 'chat_history', messages: [] });
      const reply = await ask(bobs, 'Who said hello?');
      expect(reply.type).toBe('message');
      await bobs.close();
      expect(await historyOf(bob.token, bobsSession.id)).toHaveLength(2);
      expect(await historyOf(alice.token, episode.id)).toHaveLength(4);
    });

    it('answers bad frames with error frames, stores nothing, and keeps the socket open', async () => {
      const client = await connect({ token: alice.token, transcript_id: other.id });
      expect(await client.next()).toEqual({ type: 'chat_history', messages: [] });

      expect(await ask(client, '  \n ')).toEqual({ type: 'error', error: 'Message cannot be empty' });
      client.send('{not json');
      expect(await client.next()).toEqual({ type: 'error', error: 'Invalid JSON' });
      client.send({ type: 'typing' });
      const unknown = await client.next();
      expect(unknown.type).toBe('error');
      client.send({ type: 'chat_message', content: 42 });
      expect((await client.next()).type).toBe('error');

      // Still open and answering after the errors.
      const reply = await ask(client, 'Is the tavern quiet?');
      expect(reply.type).toBe('message');
      if (reply.type === 'message') expect(citedTimes(reply.message.content)).toContain('00:00:05');
      await client.close();
      expect(await historyOf(alice.token, other.id)).toEqual([
        { role: 'user', content: 'Is the tavern quiet?' },
        reply.type === 'message' ? reply.message : null,
      ]);
    });

    it('signs a browser handshake (our Origin) in with the access-token cookie when there is no token in the query', async () => {
      const client = await connect(
        { transcript_id: other.id },
        { cookie: `access_token=${alice.token}`, origin: system.url },
      );
      expect((await client.next()).type).toBe('chat_history');
      await client.close();
    });
  });
});
