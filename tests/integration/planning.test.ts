import {
  PLANNING_SUGGESTIONS_MESSAGE,
  type Group,
  type PlanningMessage,
  type PlanningServerFrame,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

// Node 20 has no WebSocket client of its own: ws, the library the gateway serves sockets with.
type Socket = WebSocket;

/** A connected planning socket with its frames queued in arrival order. */
interface PlanningClient {
  socket: Socket;
  next(timeoutMs?: number): Promise<PlanningServerFrame>;
  send(frame: Record<string, unknown>): void;
  close(): Promise<void>;
}

describe(`planning socket (${testMode} mode, offline engine)`, () => {
  let system: TestSystem;
  let alice: { token: string; id: string };
  let bob: { token: string; id: string };
  let campaign: Group;
  let otherCampaign: Group;
  let bobsGroup: Group;

  const api = async <T>(method: string, p: string, token: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${system.url}/api${p}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status, `${method} ${p}`).toBe(200);
    return (await res.json()) as T;
  };

  const wsUrl = (query: Record<string, string>) =>
    `${system.url.replace(/^http/, 'ws')}/api/ws/planning?${new URLSearchParams(query).toString()}`;

  /**
   * Opens a socket; resolves with the client, or rejects with the handshake's HTTP status. A
   * `token` goes in the Authorization header (a token in the URL counts as none).
   */
  const connect = ({ token, ...query }: Record<string, string>): Promise<PlanningClient> =>
    new Promise((resolve, reject) => {
      const socket = new WebSocket(wsUrl(query), {
        headers: token !== undefined ? { authorization: `Bearer ${token}` } : {},
      });
      const frames: PlanningServerFrame[] = [];
      const waiters: ((f: PlanningServerFrame) => void)[] = [];
      socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as PlanningServerFrame;
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
          send: (frame) => socket.send(JSON.stringify(frame)),
          close: () =>
            new Promise<void>((res) => {
              if (socket.readyState === socket.CLOSED) return res();
              socket.once('close', () => res());
              socket.close(1000);
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

  const historyOf = async (token: string, group: Group): Promise<PlanningMessage[]> => {
    const client = await connect({ token, group_id: group.group_id });
    const frame = await client.next();
    await client.close();
    expect(frame.type).toBe('chat_history');
    return frame.type === 'chat_history' ? frame.messages : [];
  };

  const ask = async (client: PlanningClient, frame: Record<string, unknown>): Promise<PlanningMessage> => {
    client.send({ type: 'chat_message', canvasContent: '', selection: null, selectedText: '', ...frame });
    const reply = await client.next(60_000);
    if (reply.type !== 'message') throw new Error(`expected a message frame, got ${JSON.stringify(reply)}`);
    return reply.message;
  };

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true' } });
    const a = await localSignIn(system.url, 'alice');
    const b = await localSignIn(system.url, 'bob');
    alice = { token: a.cookie, id: a.body.user?.id ?? '' };
    bob = { token: b.cookie, id: b.body.user?.id ?? '' };
    campaign = await api<Group>('POST', '/groups', alice.token, { name: 'Vox Machina' });
    otherCampaign = await api<Group>('POST', '/groups', alice.token, { name: 'The Mighty Nein' });
    bobsGroup = await api<Group>('POST', '/groups', bob.token, { name: "Bob's table" });
    await api<TranscriptListItem>('POST', '/transcripts/manual', alice.token, {
      name: 'Arrival at Kraghammer',
      session_date: '2015-03-12T00:00:00.000Z',
      transcript: '[00:00:05] MATT: You arrive at the gates of Kraghammer.',
      summary: 'The party reaches the dwarven city of Kraghammer and meets Nostoc Greyspine.',
      group_id: campaign.group_id,
    });
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  it('refuses the handshake without a token, with a bad token, and without a group', async () => {
    expect(await refusal({ group_id: campaign.group_id })).toBe(401);
    expect(await refusal({ token: 'not.a.token', group_id: campaign.group_id })).toBe(401);
    expect(await refusal({ token: alice.token })).toBe(400);
  });

  it("refuses another user's group and an unknown one as not found", async () => {
    expect(await refusal({ token: alice.token, group_id: bobsGroup.group_id })).toBe(404);
    expect(await refusal({ token: bob.token, group_id: campaign.group_id })).toBe(404);
    expect(await refusal({ token: alice.token, group_id: '00000000-0000-4000-8000-000000000000' })).toBe(404);
    expect(await refusal({ token: alice.token, group_id: 'no-such-group' })).toBe(404);
  });

  it('sends chat_history on connect, answers with message frames and keeps the history', async () => {
    const client = await connect({ token: alice.token, group_id: campaign.group_id });
    expect(await client.next()).toEqual({ type: 'chat_history', messages: [] });

    const before = Date.now();
    const reply = await ask(client, { content: 'What should happen in Kraghammer next session?' });
    expect(reply.role).toBe('assistant');
    expect(reply.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(reply.content.trim().length).toBeGreaterThan(0);
    expect(Date.parse(reply.timestamp)).toBeGreaterThanOrEqual(before - 1000);
    await client.close();

    const stored = await historyOf(alice.token, campaign);
    expect(stored.map((m) => [m.role, m.content])).toEqual([
      ['user', 'What should happen in Kraghammer next session?'],
      ['assistant', reply.content],
    ]);
    expect(stored[1]).toEqual(reply);
    expect(stored[0]!.id).not.toBe(reply.id);
  });

  it('keeps a separate history per group', async () => {
    const client = await connect({ token: alice.token, group_id: otherCampaign.group_id });
    expect(await client.next()).toEqual({ type: 'chat_history', messages: [] });
    await ask(client, { content: 'Who is Caleb?' });
    await client.close();
    expect((await historyOf(alice.token, otherCampaign)).map((m) => m.content)[0]).toBe('Who is Caleb?');
    expect((await historyOf(alice.token, campaign)).map((m) => m.content)).not.toContain('Who is Caleb?');
  });

  it("answers 'GENERATE SESSION SUGGESTIONS' with suggestions shown as chat", async () => {
    const client = await connect({ token: alice.token, group_id: campaign.group_id });
    await client.next();
    const reply = await ask(client, { content: PLANNING_SUGGESTIONS_MESSAGE });
    expect(reply.role).toBe('assistant');
    expect(reply.content.trim().length).toBeGreaterThan(20);
    await client.close();
  });

  it('offline, answers a document request with what the fallback cannot do, never a document action', async () => {
    const client = await connect({ token: alice.token, group_id: campaign.group_id });
    await client.next();
    const document = 'Session 2 plan\n\nThe party enters the Greyspine mines.';
    const selectedText = 'The party enters the Greyspine mines.';
    const start = document.indexOf(selectedText);
    const reply = await ask(client, {
      content: 'Rewrite the selected text in the document to be more dramatic.',
      canvasContent: document,
      selection: { start, end: start + selectedText.length },
      selectedText,
    });
    expect(reply.content).toContain('The offline fallback cannot write or change the planning document');
    expect(() => JSON.parse(reply.content)).toThrow();
    expect(reply.content).not.toContain('actionHint');
    await client.close();
  });

  it('answers a bad frame or an empty message with an error frame and stores nothing', async () => {
    const before = (await historyOf(alice.token, campaign)).length;
    const client = await connect({ token: alice.token, group_id: campaign.group_id });
    await client.next();
    client.socket.send('not json');
    expect(await client.next()).toEqual({ type: 'error', error: 'Invalid JSON' });
    client.send({ type: 'something_else', content: 'hi' });
    const wrongType = await client.next();
    expect(wrongType.type).toBe('error');
    client.send({ type: 'chat_message', content: '   ' });
    expect(await client.next()).toEqual({ type: 'error', error: 'Message cannot be empty.' });
    // The socket stays usable after errors.
    const reply = await ask(client, { content: 'Still there?' });
    expect(reply.role).toBe('assistant');
    await client.close();
    expect((await historyOf(alice.token, campaign)).length).toBe(before + 2);
  });

  it("deletes a group's planning history with the group", async () => {
    const doomed = await api<Group>('POST', '/groups', alice.token, { name: 'Doomed' });
    const client = await connect({ token: alice.token, group_id: doomed.group_id });
    await client.next();
    await ask(client, { content: 'Plan something' });
    await client.close();
    const stored = async () =>
      Number(
        (
          await system.platform!.db.query<{ n: string }>(
            'select count(*) as n from planning.messages where group_id = $1',
            [doomed.id],
          )
        )[0]?.n,
      );
    expect(await stored()).toBe(2);
    await api('DELETE', `/groups/${doomed.group_id}`, alice.token);
    expect(await refusal({ token: alice.token, group_id: doomed.group_id })).toBe(404);
    // The planning service hears of the deletion through the durable group events.
    await waitFor(async () => (await stored()) === 0);
  });
});
