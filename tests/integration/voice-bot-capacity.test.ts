import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guildIdForShard, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
import { testMode, waitFor, type TestSystem } from '../support/system.ts';
import { startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

// A voice-bot process takes on only what its pod's requests allow (POD_MAX_RECORDINGS,
// POD_MAX_SPEAKERS; the chart derives them): a /start beyond the bound is refused in Discord
// with the reason, nothing is joined or recorded, and the refusal is counted for the alert
// (ChroniclerVoiceBotAtCapacity); once a recording ends there is room again.
describe(`a voice bot at its bound (${testMode} mode)`, () => {
  let rig: VoiceRig;
  let system: TestSystem;
  let discord: DiscordPeer;
  const member = (id: string, nick: string) => ({ id, username: nick.toLowerCase(), nick });
  const guild = (salt: number, name: string): PeerGuild => ({
    id: guildIdForShard(0, 1, salt),
    name,
    ownerId: '2001',
    channels: [
      { id: `${salt}01`, name: 'table-talk', type: 0 },
      { id: `${salt}02`, name: 'Table', type: 2 },
    ],
    members: [member('2001', 'Matt'), member('2002', 'Laura'), member('2003', 'Sam')],
  });
  const first = guild(51, 'First Table');
  const second = guild(52, 'Second Table');

  beforeAll(async () => {
    rig = await startVoiceRig(
      first,
      { POD_MAX_RECORDINGS: '1', POD_MAX_SPEAKERS: '4' },
      { processes: 'one', others: [second] },
    );
    ({ system, discord } = rig);
    await waitFor(() => discord.commands.has('global'), 30_000);
  }, 180_000);

  afterAll(async () => {
    await rig?.stop();
  });

  const refused = async (reason: string): Promise<number> => {
    const text = await (await fetch(`${system.opsUrl}/metrics`)).text();
    const m = new RegExp(`chronicler_voice_recordings_refused_total\\{reason="${reason}"\\} (\\d+)`).exec(
      text,
    );
    return Number(m?.[1] ?? 0);
  };

  it('refuses a recording beyond its bound with the reason, joins nothing, counts it, and takes it once one ends', async () => {
    for (const g of [first, second]) {
      discord.setVoice(g.id, '2001', g.channels[1]!.id);
      discord.setVoice(g.id, '2002', g.channels[1]!.id);
    }
    const started = await discord.command(first.id, first.channels[0]!.id, '2001', 'start');
    expect(started.content).toContain('Recording');
    expect(started.content).toContain('/sessions/');

    // One recording is this process's bound: the second table is told, and nothing starts there.
    const before = await refused('recordings');
    const full = await discord.command(second.id, second.channels[0]!.id, '2001', 'start');
    expect(full.content).toBe(
      'This Chronicler voice bot is at capacity right now (1 recording at once), so it cannot record here. Nothing was recorded: try `/start` again in a few minutes. Its operators have been alerted.',
    );
    expect(discord.botChannel(second.id)).toBeNull();
    expect(await refused('recordings')).toBe(before + 1);
    const metrics = await (await fetch(`${system.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/chronicler_voice_recording_load\{what="recordings",kind="running"\} 1/);
    expect(metrics).toMatch(/chronicler_voice_recording_load\{what="recordings",kind="limit"\} 1/);

    // The first one ends: there is room again.
    await discord.command(first.id, first.channels[0]!.id, '2001', 'stop');
    const next = await discord.command(second.id, second.channels[0]!.id, '2001', 'start');
    expect(next.content).toContain('/sessions/');
    await discord.command(second.id, second.channels[0]!.id, '2001', 'stop');
  }, 180_000);
});
