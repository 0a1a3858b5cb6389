import type {
  CharacterRecap,
  Codex,
  CodexEntry,
  CreatedShare,
  Previously,
  SharedView,
} from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { CAMPAIGN_LINKS, SESSION_ONE, SESSION_THREE, SESSION_TWO } from '../support/codex-campaign.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

// The campaign codex, a character's story and "previously on" without a model (the offline
// engine): built from pasted sessions after each one, edited and merged by the game master
// (edits that outlive the next reading), shared with a player signed out, and bad input refused.
describe(`the campaign codex and its stories, offline (${testMode} mode)`, () => {
  let system: TestSystem;
  let alice: string;
  let bob: string;
  let group = '';
  let otherGroup = '';
  const sessions: string[] = [];

  const api = <T = Record<string, unknown>>(method: string, path: string, token?: string, body?: unknown) =>
    apiCall<T>(system.url, method, path, token, body);
  const codex = async (query = '') => (await api<Codex>('GET', `/groups/${group}/codex${query}`, alice)).body;
  const entry = (c: Codex, name: string): CodexEntry | undefined =>
    c.entries.find((e) => e.name === name || e.aliases.includes(name));
  /** The codex once every session is read. */
  const settled = async (): Promise<Codex> => {
    let last: Codex | undefined;
    await waitFor(
      async () => {
        last = await codex('?hidden=true');
        return !last.updating && last.sessions_read === last.sessions_total;
      },
      60_000,
      250,
    );
    return last!;
  };

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true' } });
    alice = (await localSignIn(system.url, 'alice')).cookie;
    bob = (await localSignIn(system.url, 'bob')).cookie;
    group = (await api<{ id: string }>('POST', '/groups', alice, { name: 'The Silver Crown' })).body.id;
    otherGroup = (await api<{ id: string }>('POST', '/groups', alice, { name: 'Another table' })).body.id;
    expect((await api('PUT', `/groups/${group}/characters`, alice, { links: CAMPAIGN_LINKS })).status).toBe(
      200,
    );
    for (const [i, transcript] of [SESSION_ONE, SESSION_TWO, SESSION_THREE].entries()) {
      const created = await api<{ id: string }>('POST', '/transcripts/manual', alice, {
        name: `Session ${i + 1}`,
        session_date: `2026-0${i + 1}-10`,
        transcript,
        group_id: group,
      });
      expect(created.status).toBe(200);
      sessions.push(created.body.id);
    }
    await api('POST', '/transcripts/manual', alice, {
      name: 'Elsewhere',
      session_date: '2026-01-01',
      transcript: SESSION_THREE,
      group_id: otherGroup,
    });
  }, 180_000);
  afterAll(async () => {
    await system?.stop();
  });

  it("lists the sessions' people and places with moments that open them, the party apart, no spell", async () => {
    const c = await settled();
    expect(c.sessions_total).toBe(3);
    const hedda = entry(c, 'Hedda Vorn');
    expect(hedda?.kind).toBe('person');
    expect(entry(c, 'Oskar Brandt')?.kind).toBe('person');
    expect(entry(c, 'Millbrook')?.kind).toBe('place');
    expect(entry(c, 'Saltmere')?.kind).toBe('place');
    const names = c.entries.flatMap((e) => [e.name, ...e.aliases]);
    // The party is listed apart; a spell cast at the table is no one.
    expect(names).not.toContain('Bryn');
    expect(names).not.toContain('Kestrel');
    expect(names.join(' ')).not.toMatch(/Guiding Bolt/);
    expect(c.party).toEqual(expect.arrayContaining(CAMPAIGN_LINKS));
    const oskar = entry(c, 'Oskar Brandt')!;
    expect(oskar.first_seen?.transcript_id).toBe(sessions[1]);
    expect(oskar.last_seen?.transcript_id).toBe(sessions[2]);
    expect(oskar.mention_count).toBeGreaterThanOrEqual(5);
    for (const m of oskar.mentions) {
      expect(m.link).toBe(
        `/sessions/${m.transcript_id}#t=${new Date(m.seconds! * 1000).toISOString().slice(11, 19)}`,
      );
    }
    expect(hedda?.visibility).toBe('players');
  });

  it('keeps the game master’s renames, descriptions, secrets, hides and merges through the next reading', async () => {
    const c = await settled();
    const grub = entry(c, 'Grub')!;
    const sallow = entry(c, 'Mother Sallow') ?? entry(c, 'Sallow')!;
    const ilse = entry(c, 'Ilse')!;
    const renamed = await api<CodexEntry>('PATCH', `/groups/${group}/codex/${grub.id}`, alice, {
      name: 'Grub the Toll-Ogre',
      description: 'Guards the bridge for a price.',
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ name: 'Grub the Toll-Ogre', edited: true });
    expect(renamed.body.aliases).toContain('Grub');
    const secret = await api<CodexEntry>('PATCH', `/groups/${group}/codex/${sallow.id}`, alice, {
      visibility: 'gm',
    });
    expect(secret.body.visibility).toBe('gm');
    const hidden = await api<CodexEntry>('PATCH', `/groups/${group}/codex/${ilse.id}`, alice, {
      hidden: true,
    });
    expect(hidden.body.hidden).toBe(true);
    const oskar = entry(c, 'Oskar Brandt')!;
    const hedda = entry(c, 'Hedda Vorn')!;
    const merged = await api<CodexEntry>('POST', `/groups/${group}/codex/merge`, alice, {
      entry_ids: [hedda.id, oskar.id],
    });
    expect(merged.status).toBe(200);
    expect(merged.body.aliases).toEqual(expect.arrayContaining(['Oskar Brandt']));
    const mentionsBefore = merged.body.mention_count;

    // A new version of every session's text: the codex reads them all again.
    for (const [i, id] of sessions.entries()) {
      const text = [SESSION_ONE, SESSION_TWO, SESSION_THREE][i]!;
      expect(
        (
          await api('PUT', `/transcripts/${id}`, alice, {
            name: `Session ${i + 1}`,
            summary: '',
            transcript: `${text}\n[00:30:00] GM: Next time.`,
          })
        ).status,
      ).toBe(200);
    }
    const after = await settled();
    const grubAfter = after.entries.find((e) => e.id === grub.id)!;
    expect(grubAfter).toMatchObject({
      name: 'Grub the Toll-Ogre',
      description: 'Guards the bridge for a price.',
    });
    expect(after.entries.filter((e) => e.name === 'Grub')).toEqual([]);
    expect(after.entries.find((e) => e.id === sallow.id)?.visibility).toBe('gm');
    expect(after.entries.find((e) => e.id === ilse.id)?.hidden).toBe(true);
    expect((await codex()).entries.find((e) => e.id === ilse.id)).toBeUndefined();
    // Oskar's mentions land on the entry he was merged into; no new Oskar entry appears.
    expect(after.entries.filter((e) => e.name === 'Oskar Brandt' || e.name === 'Oskar')).toEqual([]);
    expect(after.entries.find((e) => e.id === hedda.id)!.mention_count).toBe(mentionsBefore);
  });

  it("tells a character's story from the scenes their player was in, and leaves out the rest", async () => {
    await settled();
    const kestrel = await api<CharacterRecap>(
      'GET',
      `/groups/${group}/character-recap?character=Kestrel`,
      alice,
    );
    expect(kestrel.status).toBe(200);
    expect(kestrel.body.player).toBe('Priya');
    expect(kestrel.body.sessions.map((s) => s.present)).toEqual([true, true, false]);
    expect(kestrel.body.text).toContain('Ilse');
    // Bryn's harbour scene and the session Priya missed are not Kestrel's.
    expect(kestrel.body.text).not.toMatch(/Oskar|feather|Greyhaven/);
    expect(kestrel.body.text).not.toContain(`/sessions/${sessions[2]}`);
    expect(kestrel.body.text).toMatch(new RegExp(`/sessions/${sessions[1]}#t=\\d\\d:\\d\\d:\\d\\d`));
    const bryn = await api<CharacterRecap>('GET', `/groups/${group}/character-recap?character=bryn`, alice);
    expect(bryn.body.character).toBe('Bryn');
    expect(bryn.body.text).toMatch(/Oskar/);
    expect(bryn.body.text).not.toMatch(/Ilse/);
  });

  it('shares "previously on" and a character\'s story with a player signed out, secrets left out', async () => {
    await settled();
    const previously = await api<Previously>('GET', `/groups/${group}/previously`, alice);
    expect(previously.status).toBe(200);
    expect(previously.body.session?.id).toBe(sessions[2]);
    expect(previously.body.text).toContain('Previously on The Silver Crown');

    const link = await api<CreatedShare>('POST', `/groups/${group}/previously/shares`, alice, {});
    expect(link.status).toBe(201);
    const view = await api<SharedView>('GET', link.body.path);
    expect(view.status).toBe(200);
    expect(view.body).toMatchObject({ kind: 'previously', group: { name: 'The Silver Crown' } });
    const body = JSON.stringify(view.body);
    // Mother Sallow is the game master's secret now: a player never reads her name.
    expect(body).not.toMatch(/Sallow/);
    if (view.body.kind === 'previously') {
      expect(view.body.entries.every((e) => e.visibility === 'players')).toBe(true);
      const token = link.body.path.split('/').at(-1)!;
      expect(view.body.text).toContain(`/shared/${token}/sessions/${sessions[2]}`);
      const opened = await api('GET', `/shared/${token}/sessions/${sessions[2]}`);
      expect(opened.status).toBe(200);
    }

    const story = await api<CreatedShare>('POST', `/groups/${group}/character-recap/shares`, alice, {
      character: 'kestrel',
    });
    expect(story.status).toBe(201);
    expect(story.body).toMatchObject({ kind: 'character-recap', subject: 'Kestrel' });
    const shared = await api<SharedView>('GET', story.body.path);
    expect(shared.body).toMatchObject({ kind: 'character-recap', character: 'Kestrel' });
    expect(JSON.stringify(shared.body)).not.toMatch(/Oskar|Sallow/);
    const token = story.body.path.split('/').at(-1)!;
    // The session Kestrel missed does not open through her story's link.
    expect((await api('GET', `/shared/${token}/sessions/${sessions[2]}`)).status).toBe(404);
    expect((await api('GET', `/shared/${token}/sessions/${sessions[1]}`)).status).toBe(200);
  });

  it('refuses bad input in words and changes nothing; another user’s campaign or entry is not found', async () => {
    const before = await settled();
    const some = before.entries.find((e) => e.kind === 'place')!;
    const cases: [string, string, string | undefined, unknown, number, RegExp][] = [
      ['PATCH', `/groups/${group}/codex/${some.id}`, alice, { name: '   ' }, 400, /Name cannot be empty/],
      [
        'PATCH',
        `/groups/${group}/codex/${some.id}`,
        alice,
        { name: 'x'.repeat(81) },
        400,
        /Name cannot exceed 80 characters/,
      ],
      [
        'PATCH',
        `/groups/${group}/codex/${some.id}`,
        alice,
        { description: 'y'.repeat(2001) },
        400,
        /Description cannot exceed 2,000 characters/,
      ],
      ['PATCH', `/groups/${group}/codex/${some.id}`, alice, {}, 400, /Nothing to change/],
      ['PATCH', `/groups/${group}/codex/${some.id}`, alice, { kind: 'dragon' }, 400, /./],
      ['PATCH', `/groups/${group}/codex/${some.id}`, bob, { name: 'Mine' }, 404, /Group not found/],
      [
        'PATCH',
        `/groups/${group}/codex/00000000-0000-4000-8000-000000000000`,
        alice,
        { name: 'Ghost' },
        404,
        /Codex entry not found/,
      ],
      ['POST', `/groups/${group}/codex/merge`, alice, { entry_ids: [some.id] }, 400, /at least two entries/],
      [
        'POST',
        `/groups/${group}/codex/merge`,
        bob,
        { entry_ids: [some.id, before.entries[0]!.id] },
        404,
        /Group not found/,
      ],
      ['GET', `/groups/${group}/codex`, bob, undefined, 404, /Group not found/],
      [
        'GET',
        `/groups/${group}/character-recap?character=Nobody`,
        alice,
        undefined,
        404,
        /No character named Nobody in this campaign/,
      ],
      [
        'GET',
        `/groups/${group}/character-recap?character=%20`,
        alice,
        undefined,
        400,
        /Character cannot be empty/,
      ],
      ['GET', `/groups/${group}/character-recap?character=Kestrel`, bob, undefined, 404, /Group not found/],
      ['GET', `/groups/${group}/previously`, bob, undefined, 404, /Group not found/],
      [
        'POST',
        `/groups/${group}/character-recap/shares`,
        alice,
        { character: 'Nobody' },
        404,
        /No character named Nobody/,
      ],
      ['POST', `/groups/${group}/previously/shares`, bob, {}, 404, /Group not found/],
    ];
    for (const [method, path, who, body, status, message] of cases) {
      const res = await api<{ detail: string }>(method, path, who, body);
      expect({ path, body, status: res.status }).toEqual({ path, body, status });
      expect(res.body.detail).toMatch(message);
    }
    // Entries of two campaigns are never merged.
    const other = await settledOther();
    const res = await api<{ detail: string }>('POST', `/groups/${group}/codex/merge`, alice, {
      entry_ids: [some.id, other.entries[0]!.id],
    });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('Entries of different campaigns cannot be merged.');
    expect(await settled()).toEqual(before);
  });

  const settledOther = async (): Promise<Codex> => {
    let last: Codex | undefined;
    await waitFor(
      async () => {
        last = (await api<Codex>('GET', `/groups/${otherGroup}/codex`, alice)).body;
        return !last.updating && last.sessions_read === 1 && last.entries.length > 0;
      },
      60_000,
      250,
    );
    return last!;
  };
});
