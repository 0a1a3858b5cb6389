import {
  PREP_TEXT_MAX,
  PREP_UPDATE_EVENT,
  type GroupPrep,
  type PrepItem,
  type PrepUpdate,
} from '@chronicler/contracts';
import { busSink, replaySession, type LiveSink, type ReplayTurn } from '@chronicler/voice-bot/replay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

interface User {
  token: string;
  id: string;
}

// A session in which two of three prepared items are said (turns 3 and 5); the third never is.
const TURNS: ReplayTurn[] = [
  { speaker: 'GM', text: 'Welcome back everyone, we pick up in the tavern at dusk.' },
  { speaker: 'Ana', text: 'I order a drink and look for our contact.' },
  { speaker: 'GM', text: 'The innkeeper leans in and reveals that your map is a forgery.' },
  { speaker: 'Ben', text: 'A forgery? Then who drew it, and why?' },
  { speaker: 'GM', text: 'The door bangs open and Captain Varla of the watch strides in.' },
  { speaker: 'Ana', text: 'I keep my hood up and stay quiet.' },
];
const SAID_FIRST = 'The innkeeper reveals the map is a forgery';
const SAID_SECOND = 'Introduce Captain Varla';
const NEVER_SAID = 'The dragon attacks the bridge at Highcliff';

describe(`prep that ticks itself off (${testMode} mode)`, () => {
  let system: TestSystem;
  let alice: User;
  let bob: User;
  const viewers: LiveViewer[] = [];

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true', SUMMARY_AUTOMATIC: 'false' } });
    for (const [name, set] of [
      ['alice', (u: User) => (alice = u)],
      ['bob', (u: User) => (bob = u)],
    ] as const) {
      const r = await localSignIn(system.url, name);
      set({ token: r.cookie, id: r.body.user?.id ?? '' });
    }
  }, 120_000);
  afterAll(async () => {
    for (const v of viewers) v.close();
    await system?.stop();
  });

  const api = <T = Record<string, unknown>>(method: string, path: string, token?: string, body?: unknown) =>
    apiCall<T>(system.url, method, path, token, body);
  const newGroup = async (user: User, name: string) => {
    const r = await api<{ id: string }>('POST', '/groups', user.token, { name });
    expect(r.status).toBe(200);
    return r.body.id;
  };
  const add = async (groupId: string, text: string) => {
    const r = await api<PrepItem>('POST', `/groups/${groupId}/prep`, alice.token, { text });
    expect(r.status).toBe(200);
    return r.body;
  };
  const prep = async (groupId: string) => {
    const r = await api<GroupPrep>('GET', `/groups/${groupId}/prep`, alice.token);
    expect(r.status).toBe(200);
    return r.body.items;
  };

  it('keeps a checklist per campaign: add, edit, tick by hand, untick, delete', async () => {
    const groupId = await newGroup(alice, 'Checklist');
    expect(await prep(groupId)).toEqual([]);
    const one = await add(groupId, '  Reveal   the   cult  ');
    expect(one).toMatchObject({
      text: 'Reveal the cult',
      done: false,
      ticked_by: null,
      moment: null,
      closed_in: null,
    });
    const two = await add(groupId, 'The ferry sinks');
    const edited = await api<PrepItem>('PATCH', `/groups/${groupId}/prep/${one.id}`, alice.token, {
      text: 'Reveal the cult leader',
    });
    expect(edited.body.text).toBe('Reveal the cult leader');
    const ticked = await api<PrepItem>('PATCH', `/groups/${groupId}/prep/${two.id}`, alice.token, {
      done: true,
    });
    expect(ticked.body).toMatchObject({ done: true, ticked_by: 'user', moment: null });
    const unticked = await api<PrepItem>('PATCH', `/groups/${groupId}/prep/${two.id}`, alice.token, {
      done: false,
    });
    expect(unticked.body).toMatchObject({ done: false, ticked_by: null });
    expect((await api('DELETE', `/groups/${groupId}/prep/${one.id}`, alice.token)).status).toBe(200);
    expect((await prep(groupId)).map((i) => i.text)).toEqual(['The ferry sinks']);
  });

  it('refuses an empty or over-long text, and changes nothing', async () => {
    const groupId = await newGroup(alice, 'Refusals');
    const item = await add(groupId, 'Kept as written');
    for (const text of ['', '   ', 'x'.repeat(PREP_TEXT_MAX + 1)]) {
      const created = await api<{ detail: string }>('POST', `/groups/${groupId}/prep`, alice.token, { text });
      expect(created.status).toBe(400);
      expect(created.body.detail).toMatch(/needs a text|at most 300 characters/);
      const edited = await api('PATCH', `/groups/${groupId}/prep/${item.id}`, alice.token, { text });
      expect(edited.status).toBe(400);
    }
    expect((await api('POST', `/groups/${groupId}/prep`, alice.token, { text: 5 })).status).toBe(400);
    expect((await api('POST', `/groups/${groupId}/prep`, alice.token, {})).status).toBe(400);
    expect((await prep(groupId)).map((i) => i.text)).toEqual(['Kept as written']);
  });

  it("answers 404 for another user's campaign or item, and for an unknown one", async () => {
    const groupId = await newGroup(alice, 'Private');
    const item = await add(groupId, 'A secret door');
    const bobsGroup = await newGroup(bob, 'Bob’s');
    const asBob = [
      api('GET', `/groups/${groupId}/prep`, bob.token),
      api('POST', `/groups/${groupId}/prep`, bob.token, { text: 'Mine now' }),
      api('PATCH', `/groups/${groupId}/prep/${item.id}`, bob.token, { done: true }),
      api('DELETE', `/groups/${groupId}/prep/${item.id}`, bob.token),
      // His own campaign with her item: still not his.
      api('PATCH', `/groups/${bobsGroup}/prep/${item.id}`, bob.token, { done: true }),
      api('POST', `/groups/${groupId}/prep/carry`, bob.token, { transcript_id: item.id }),
      api('GET', `/groups/00000000-0000-4000-8000-000000000000/prep`, alice.token),
      api('PATCH', `/groups/${groupId}/prep/00000000-0000-4000-8000-000000000000`, alice.token, {
        done: true,
      }),
    ];
    for (const r of await Promise.all(asBob)) expect(r.status).toBe(404);
    expect(await prep(groupId)).toEqual([{ ...item }]);
    expect((await api('GET', `/groups/${groupId}/prep`)).status).toBe(401);
  });

  it(
    'ticks the items said in a replayed live session with their moments, live on its socket, then carries the rest',
    { timeout: 240_000 },
    async () => {
      const groupId = await newGroup(alice, 'Live prep');
      const first = await add(groupId, SAID_FIRST);
      const second = await add(groupId, SAID_SECOND);
      const never = await add(groupId, NEVER_SAID);

      // The replay waits for a viewer of the session (as the planning page is) before its first line.
      let viewer: LiveViewer | undefined;
      const updates: PrepUpdate[] = [];
      const bus = busSink(system.platform!.bus);
      const gated: LiveSink = {
        start: (s) => bus.start(s),
        send: async (tid, u) => {
          if (!viewer) {
            // A viewer can join once the transcript service has stored the session's start.
            await waitFor(
              async () => (await api('GET', `/transcripts/${tid}`, alice.token)).status === 200,
              60_000,
            );
            viewer ??= new LiveViewer(system.url, tid, alice.token);
            viewers.push(viewer);
            viewer.socket.on(PREP_UPDATE_EVENT, (up: PrepUpdate) => updates.push(up));
          }
          await waitFor(() => viewer?.joined != null, 60_000);
          await bus.send(tid, u);
        },
        // The session stays live until the test has tried to carry its plan forward.
        end: async (tid, e) => {
          await ended;
          await bus.end(tid, e);
        },
        close: () => bus.close(),
      };
      let endNow = () => {};
      const ended = new Promise<void>((r) => (endNow = r));
      let transcriptId = '';
      const replay = replaySession(gated, TURNS, {
        owner: alice.id,
        groupId,
        name: 'Prep night',
        speed: 20,
        onStart: (tid) => {
          transcriptId = tid;
        },
      });

      await waitFor(() => updates.flatMap((u) => u.items).length >= 2, 60_000);
      // While it runs, its plan cannot be closed yet.
      const early = await api<{ detail: string }>('POST', `/groups/${groupId}/prep/carry`, alice.token, {
        transcript_id: transcriptId,
      });
      expect(early.status).toBe(409);
      endNow();
      await replay;
      await viewer!.untilEnded(60_000);
      await waitFor(
        async () =>
          (await api<{ status: string }>('GET', `/transcripts/${transcriptId}`, alice.token)).body.status ===
          'ended',
        60_000,
      );

      const lineOf = (words: string) => viewer!.ordered().find((l) => l.text.includes(words))!;
      const sent = updates.flatMap((u) => u.items);
      expect(sent.map((i) => i.id).sort()).toEqual([first.id, second.id].sort());
      expect(updates.every((u) => u.group_id === groupId && u.transcript_id === transcriptId)).toBe(true);

      const items = await prep(groupId);
      const byId = new Map(items.map((i) => [i.id, i]));
      expect(byId.get(first.id)).toMatchObject({
        done: true,
        ticked_by: 'transcript',
        moment: {
          transcript_id: transcriptId,
          seconds: lineOf('reveals that your map').start_seconds,
          speaker: 'GM',
          quote: TURNS[2]!.text,
        },
      });
      expect(byId.get(second.id)!.moment).toMatchObject({
        transcript_id: transcriptId,
        seconds: lineOf('Captain Varla').start_seconds,
        speaker: 'GM',
      });
      expect(byId.get(first.id)!.moment!.seconds).toBeLessThan(byId.get(second.id)!.moment!.seconds);
      expect(byId.get(never.id)).toMatchObject({ done: false, moment: null });

      // The game master unticks and ticks again by hand: the moment goes with the transcript's tick.
      const untick = await api<PrepItem>('PATCH', `/groups/${groupId}/prep/${second.id}`, alice.token, {
        done: false,
      });
      expect(untick.body).toMatchObject({ done: false, moment: null });
      await api('PATCH', `/groups/${groupId}/prep/${second.id}`, alice.token, { done: true });

      // After the session: what came up is closed with it, the rest carried into the next plan.
      const elsewhere = await api<{ id: string }>('POST', '/transcripts/manual', alice.token, {
        name: 'Not of this campaign',
        session_date: '2026-11-01',
        transcript: '[00:00:01] GM: Hello.',
      });
      const wrong = await api('POST', `/groups/${groupId}/prep/carry`, alice.token, {
        transcript_id: elsewhere.body.id,
      });
      expect(wrong.status).toBe(400);
      const carried = await api<GroupPrep>('POST', `/groups/${groupId}/prep/carry`, alice.token, {
        transcript_id: transcriptId,
      });
      expect(carried.status).toBe(200);
      const after = new Map(carried.body.items.map((i) => [i.id, i]));
      expect(after.get(first.id)).toMatchObject({ closed_in: transcriptId, done: true, carried_from: [] });
      expect(after.get(second.id)).toMatchObject({ closed_in: transcriptId, done: true });
      expect(after.get(never.id)).toMatchObject({
        closed_in: null,
        done: false,
        carried_from: [transcriptId],
      });
      // The next plan first: the carried item leads the list.
      expect(carried.body.items[0]!.id).toBe(never.id);
      // Carrying again changes nothing.
      const again = await api<GroupPrep>('POST', `/groups/${groupId}/prep/carry`, alice.token, {
        transcript_id: transcriptId,
      });
      expect(again.body.items).toEqual(carried.body.items);
    },
  );
});
