import type { GroupSpotlight, SessionSpotlight } from '@chronicler/contracts';
import { busSink } from '@chronicler/voice-bot/replay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

interface User {
  token: string;
  id: string;
}

// Counted by hand (rules in services/shared/contracts/src/spotlight.ts): talk 42 s of a 86 s
// session; the GM 13 s, Speaker 1 9 s, Speaker 2 20 s.
const TIMED = [
  'The party gathers.',
  '[00:00:00] GM: Welcome back, everyone, to the table.',
  '[00:00:10] 1: I open the door.',
  '[00:00:15] GM: Night falls.',
  '[00:01:00] 2: I light a torch and look around the room.',
  '[00:01:20] 1: Me too.',
  '[00:01:24] GM: Roll for initiative, everyone, please.',
].join('\n');

describe(`spotlight (${testMode} mode)`, () => {
  let system: TestSystem;
  let alice: User;
  let bob: User;

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
    await system?.stop();
  });

  const api = <T = Record<string, unknown>>(method: string, path: string, token?: string, body?: unknown) =>
    apiCall<T>(system.url, method, path, token, body);
  const paste = async (name: string, transcript: string, date: string, groupId?: string) => {
    const r = await api<{ id: string }>('POST', '/transcripts/manual', alice.token, {
      name,
      session_date: date,
      transcript,
      ...(groupId ? { group_id: groupId } : {}),
    });
    expect(r.status).toBe(200);
    return r.body.id;
  };

  it('gives a pasted session the figures of a hand count, with its speaker names, the GM apart', async () => {
    const id = await paste('Timed', TIMED, '2026-11-01');
    const named = await api('PUT', `/transcripts/${id}/speakers`, alice.token, {
      speakers: [{ label: 'Speaker 2', name: 'Ana', character: 'Vex' }],
    });
    expect(named.status).toBe(200);
    const r = await api<SessionSpotlight>('GET', `/transcripts/${id}/spotlight`, alice.token);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      basis: 'time',
      note: '',
      total_seconds: 86,
      total_lines: 6,
      untagged_lines: 1,
    });
    expect(r.body.gm).toMatchObject({ key: 'GM', role: 'gm', seconds: 13, lines: 3, share: 0.3095 });
    expect(r.body.gm_by).toBe('name');
    expect(
      r.body.players.map((p) => [
        p.key,
        p.character,
        p.seconds,
        p.lines,
        p.player_share,
        p.longest_silence_seconds,
      ]),
    ).toEqual([
      ['Ana', 'Vex', 20, 1, 0.6897, 60],
      ['Speaker 1', '', 9, 2, 0.3103, 65],
    ]);
  });

  it('counts a session without times by lines and says so', async () => {
    const id = await paste('Untimed', 'DM: Hello.\nMatt: Hi.\nDM: Go on.\nSam: Sure.', '2026-11-02');
    const r = await api<SessionSpotlight>('GET', `/transcripts/${id}/spotlight`, alice.token);
    expect(r.status).toBe(200);
    expect(r.body.basis).toBe('lines');
    expect(r.body.note).toMatch(/counted by lines/);
    expect(r.body.gm).toMatchObject({ key: 'DM', lines: 2, seconds: null, share: 0.5 });
  });

  it('answers 404 for another user’s session or campaign, and for no such id', async () => {
    const id = await paste('Private', TIMED, '2026-11-03');
    const group = await api<{ id: string }>('POST', '/groups', alice.token, { name: 'Private campaign' });
    expect((await api('GET', `/transcripts/${id}/spotlight`, bob.token)).status).toBe(404);
    expect((await api('GET', `/groups/${group.body.id}/spotlight`, bob.token)).status).toBe(404);
    expect((await api('GET', `/transcripts/not-a-session/spotlight`, alice.token)).status).toBe(404);
    expect(
      (await api('GET', `/groups/00000000-0000-4000-8000-000000000000/spotlight`, alice.token)).status,
    ).toBe(404);
  });

  it('follows each player across the campaign with the sessions since a large share', async () => {
    const group = await api<{ id: string }>('POST', '/groups', alice.token, { name: 'Spotlight campaign' });
    expect(group.status).toBe(200);
    const gid = group.body.id;
    // The Who Is Who map tells the game master apart: the one who talks most without a character.
    const map = await api('PUT', `/groups/${gid}/characters`, alice.token, {
      links: [
        { speaker: 'Ana', character: 'Vex' },
        { speaker: 'Bo', character: 'Grog' },
      ],
    });
    expect(map.status).toBe(200);
    await paste('One', 'Matt: The road is long and dark.\nAna: I walk.\nBo: I follow.', '2026-10-01', gid);
    await paste('Two', 'Matt: A door.\nAna: I open it.\nAna: And look in.\nBo: Hm.', '2026-10-08', gid);
    await paste('Three', 'Matt: A dragon!\nAna: Run!\nAna: Now!\nBo: No.', '2026-10-15', gid);
    const r = await api<GroupSpotlight>('GET', `/groups/${gid}/spotlight`, alice.token);
    expect(r.status).toBe(200);
    expect(r.body.sessions.map((s) => s.name)).toEqual(['One', 'Two', 'Three']);
    expect(r.body.gm.map((g) => g.key)).toEqual(['Matt']);
    const [first, second] = r.body.players;
    expect(first).toMatchObject({
      key: 'Bo',
      character: 'Grog',
      sessions: 3,
      lines: 3,
      sessions_since_large_share: 2,
    });
    expect(second).toMatchObject({ key: 'Ana', character: 'Vex', sessions_since_large_share: 0 });
    expect(second!.per_session).toEqual([0.3333, 0.5, 0.5]);
  });

  it('moves the shares of a live session as its lines come', async () => {
    const sink = busSink(system.platform!.bus);
    const { transcriptId } = await sink.start({ owner_id: alice.id, name: 'Live spotlight' });
    const final = (n: number, tag: number, start: number, text: string) => ({
      utterance_id: `u${n}`,
      text,
      speaker_tag: tag,
      start_seconds: start,
      end_seconds: start + 2,
      final_index: n,
      is_final: true,
    });
    const spotlight = async () =>
      (await api<SessionSpotlight>('GET', `/transcripts/${transcriptId}/spotlight`, alice.token)).body;
    await sink.send(transcriptId, [final(1, 1, 0, 'We begin'), final(2, 2, 5, 'Hello there')]);
    await waitFor(async () => (await spotlight()).total_lines === 2);
    const before = await spotlight();
    expect(before.players.find((p) => p.key === 'Speaker 2')!.lines).toBe(1);
    await sink.send(transcriptId, [final(3, 2, 10, 'And more from me'), final(4, 2, 15, 'Still me')]);
    await waitFor(async () => (await spotlight()).total_lines === 4);
    const after = await spotlight();
    const two = (s: SessionSpotlight) => s.players.find((p) => p.key === 'Speaker 2')!.share;
    expect(two(after)).toBeGreaterThan(two(before));
    expect((await api('GET', `/transcripts/${transcriptId}/spotlight`, bob.token)).status).toBe(404);
  });
});
