import { existsSync } from 'node:fs';
import {
  REMOVED_LINE_TEXT,
  SESSION_AUDIO_BUCKET,
  type AudioTrack,
  type RecordedSession,
} from '@chronicler/contracts';
import type { Turn } from '@chronicler/voice-bot/pipeline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VoiceTable } from '../peers/discord-voice/table.ts';
import { guildIdForShard, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
import { apiCall } from '../support/api.ts';
import { testMode, waitFor, type TestSystem } from '../support/system.ts';
import {
  keptTracks,
  recordSession,
  seatTable,
  signInWithDiscord,
  startVoiceRig,
  type VoiceRig,
} from '../support/voice-rig.ts';

// Speech to play (espeak-ng): skipped on a machine without it.
const hasEspeak = existsSync('/usr/bin/espeak-ng');

interface Session {
  content: string;
  summary: string;
  summary_status: string;
}

// Two members speak through real @discordjs/voice clients; one of them then removes what was
// recorded of them, from Discord (/mydata) or from the web app (/api/me/recorded).
describe.runIf(hasEspeak)(`a recorded member's own data (${testMode} mode)`, () => {
  let rig: VoiceRig;
  let system: TestSystem;
  let discord: DiscordPeer;
  let table: VoiceTable;
  let owner: string;
  let laura: string;
  let sam: string;
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 35),
    name: 'Privacy Table',
    ownerId: '3501',
    channels: [
      { id: '8501', name: 'table-talk', type: 0 },
      { id: '8502', name: 'Tavern', type: 2 },
    ],
    members: [
      { id: '3501', username: 'matt', nick: 'Matt' },
      { id: '3502', username: 'laura', nick: 'Laura' },
      { id: '3503', username: 'sam', nick: 'Sam' },
    ],
  };
  const matt = { key: '3501', displayName: 'Matt', userId: '3501' };
  const lauraSpeaker = { key: '3502', displayName: 'Laura', userId: '3502' };

  beforeAll(async () => {
    rig = await startVoiceRig(guild, {}, { processes: 'one' });
    ({ system, discord, owner } = rig);
    laura = await signInWithDiscord(system, rig.oauth, { id: '3502', username: 'laura' });
    sam = await signInWithDiscord(system, rig.oauth, { id: '3503', username: 'sam' });
    table = await seatTable(rig, guild.id, '8502', ['3501', '3502']);
  }, 120_000);

  afterAll(async () => {
    await table?.close();
    await rig?.stop();
  });

  /** One recorded session: Matt, then Laura (twice), then /stop; its id once its tracks are kept. */
  async function record(words: [string, string, string]): Promise<string> {
    const turns: Turn[] = [
      { speaker: matt, text: words[0] },
      { speaker: lauraSpeaker, text: words[1] },
      { speaker: lauraSpeaker, text: words[2] },
    ];
    const { tid } = await recordSession(rig, table, {
      guildId: guild.id,
      textChannelId: '8501',
      by: '3501',
      turns,
    });
    await keptTracks(rig, tid, 2);
    return tid;
  }

  /** Whatever the owner can read of the session: its text, summary, search, exports, edits. */
  async function everything(tid: string, word: string): Promise<string> {
    const t = await apiCall<Session>(system.url, 'GET', `/transcripts/${tid}`, owner);
    const edits = await apiCall(system.url, 'GET', `/transcripts/${tid}/lines/edits`, owner);
    const search = await apiCall(system.url, 'GET', `/search?q=${encodeURIComponent(word)}`, owner);
    const exports = await Promise.all(
      ['md', 'txt', 'srt', 'json'].map(async (format) => {
        const res = await fetch(`${system.url}/api/transcripts/${tid}/export?format=${format}`, {
          headers: { authorization: `Bearer ${owner}` },
        });
        return res.text();
      }),
    );
    const recaps = system.platform
      ? await system.platform.db.query<{ summary: string }>(
          'select summary from summary.session_recaps where transcript_id = $1',
          [tid],
        )
      : [];
    return [
      t.body.content,
      t.body.summary,
      JSON.stringify(edits.body),
      JSON.stringify(search.body),
      ...exports,
      ...recaps.map((r) => r.summary),
    ].join('\n');
  }

  it("/mydata lists the member's sessions of this server and deletes their lines and track (confirmed), leaving the session, its exports and its recap without them", async () => {
    const tid = await record([
      'The dragon circles above the tower',
      'Vex nocks an arrow and waits',
      'Keyleth whispers to the wind',
    ]);
    // The automatic summary is made before the removal (from Laura's lines too).
    await waitFor(async () => {
      const t = await apiCall<Session>(system.url, 'GET', `/transcripts/${tid}`, owner);
      return t.body.summary_status === 'done';
    }, 60_000);
    // The owner edits one of Laura's lines: the edit keeps her original beside it.
    const before = await apiCall<Session>(system.url, 'GET', `/transcripts/${tid}`, owner);
    const lauraLineNo =
      before.body.content
        .split('\n')
        .filter((l) => l.trim())
        .findIndex((l) => /nocks/i.test(l)) + 1;
    expect(lauraLineNo).toBeGreaterThan(0);
    const edit = await apiCall(system.url, 'PATCH', `/transcripts/${tid}/lines/${lauraLineNo}`, owner, {
      text: 'Vex nocks an arrow and waits patiently',
    });
    expect(edit.status).toBe(200);
    expect(await everything(tid, 'nocks')).toMatch(/nocks/i);

    // Sam, never heard: nothing of theirs; Laura: this session, with her two lines and her track.
    const none = await discord.command(guild.id, '8501', '3503', 'mydata');
    expect(none.ephemeral).toBe(true);
    expect(none.content).toContain('Nothing of yours is kept');
    const list = await discord.command(guild.id, '8501', '3502', 'mydata');
    expect(list.ephemeral).toBe(true);
    expect(list.content).toContain('You were recorded in 1 session of this server');
    expect(list.content).toContain('2 lines, your voice track kept');

    // Picking the session asks first; Cancel deletes nothing.
    const ask = await discord.component(list, '3502', 'mydata:pick', [tid]);
    expect(ask.content).toContain('Delete what was recorded of you');
    const cancelled = await discord.component(ask, '3502', 'mydata:no');
    expect(cancelled.content).toBe('Nothing was deleted.');
    expect(await everything(tid, 'nocks')).toMatch(/nocks/i);

    // Sam pressing Laura's confirmation (a copied custom id) removes nothing of hers.
    const forged = await discord.component(ask, '3503', `mydata:yes:${tid}`);
    expect(forged.content).toContain('Nothing of yours is kept');
    expect(await everything(tid, 'nocks')).toMatch(/nocks/i);

    const done = await discord.component(ask, '3502', `mydata:yes:${tid}`);
    expect(done.content).toContain('2 lines of yours removed and your voice track deleted');

    // The owner sees the placeholder at her places, Matt's line as it was.
    const after = await apiCall<Session>(system.url, 'GET', `/transcripts/${tid}`, owner);
    const lines = after.body.content.split('\n').filter((l) => l.trim());
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/Matt: The dragon circles above the tower/i);
    expect(lines.filter((l) => l.includes(REMOVED_LINE_TEXT))).toHaveLength(2);
    // Her track is gone (row and blob); Matt's stays.
    const tracks = await apiCall<AudioTrack[]>(system.url, 'GET', `/transcripts/${tid}/audio/tracks`, owner);
    expect(tracks.body.map((t) => t.speaker)).toEqual(['Matt']);
    expect(
      (
        await fetch(`${system.url}/api/transcripts/${tid}/audio?speaker=Laura`, {
          headers: { authorization: `Bearer ${owner}` },
        })
      ).status,
    ).toBe(404);
    if (system.platform) {
      expect(await system.platform.bus.blobs.info(SESSION_AUDIO_BUCKET, `${tid}/3502.ogg`)).toBeNull();
      expect(await system.platform.bus.blobs.info(SESSION_AUDIO_BUCKET, `${tid}/3501.ogg`)).not.toBeNull();
    }
    // The summary is made again from what is left; nothing anywhere still reads her words.
    await waitFor(async () => {
      const t = await apiCall<Session>(system.url, 'GET', `/transcripts/${tid}`, owner);
      return t.body.summary_status === 'done' && t.body.summary !== '';
    }, 60_000);
    const all = await everything(tid, 'nocks');
    expect(all).not.toMatch(/nocks|keyleth|whispers/i);
    expect(all).toMatch(/dragon/i);

    // Asked again: nothing of hers is left there.
    const again = await discord.command(guild.id, '8501', '3502', 'mydata');
    expect(again.content).toContain('Nothing of yours is kept');
  }, 240_000);

  it("the web API lists only the member's own lines, deletes them, and answers 404 to anyone with nothing there", async () => {
    const tid = await record([
      'Grog swings the great axe',
      'Percy reloads his pepperbox',
      'Scanlan plays a tune',
    ]);
    const listed = await apiCall<RecordedSession[]>(system.url, 'GET', '/me/recorded', laura);
    expect(listed.status).toBe(200);
    const mine = listed.body.find((s) => s.transcript_id === tid)!;
    expect(mine).toMatchObject({ guild_id: guild.id, lines: 2, track: true });
    expect(mine.own_lines).toHaveLength(2);
    expect(mine.own_lines!.join('\n')).toMatch(/pepperbox/i);
    expect(mine.own_lines!.join('\n')).not.toMatch(/grog|axe/i);

    // Sam has nothing there: 404, and nothing changes. Signed out: 401.
    expect((await apiCall(system.url, 'GET', '/me/recorded', sam)).body).toEqual([]);
    expect((await apiCall(system.url, 'DELETE', `/me/recorded/${tid}`, sam)).status).toBe(404);
    expect((await apiCall(system.url, 'DELETE', '/me/recorded/not-a-session', laura)).status).toBe(404);
    expect((await apiCall(system.url, 'GET', '/me/recorded', undefined)).status).toBe(401);
    expect(await everything(tid, 'pepperbox')).toMatch(/pepperbox/i);

    const removed = await apiCall(system.url, 'DELETE', `/me/recorded/${tid}`, laura);
    expect(removed).toMatchObject({ status: 200, body: { lines: 2, tracks: 1 } });
    expect((await apiCall(system.url, 'DELETE', `/me/recorded/${tid}`, laura)).status).toBe(404);
    const left = await apiCall<RecordedSession[]>(system.url, 'GET', '/me/recorded', laura);
    expect(left.body.find((s) => s.transcript_id === tid)).toBeUndefined();
    const after = await apiCall<Session>(system.url, 'GET', `/transcripts/${tid}`, owner);
    expect(after.body.content).toContain(REMOVED_LINE_TEXT);
    expect(after.body.content).toMatch(/grog swings/i);
    expect(after.body.content).not.toMatch(/pepperbox|scanlan/i);
  }, 240_000);
});
