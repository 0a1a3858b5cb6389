import type { Transcript } from '@chronicler/contracts';
import type { Turn } from '@chronicler/voice-bot/pipeline';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guildIdForShard, type PeerGuild } from '../peers/discord.ts';
import { voiceTable, type VoiceTable } from '../peers/discord-voice/table.ts';
import { apiCall } from '../support/api.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { testMode, waitFor } from '../support/system.ts';
import { sessionIdIn, startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

const hasEspeak = existsSync('/usr/bin/espeak-ng');

// The players leave the bot alone in an end-to-end encrypted (DAVE) channel for a break, as
// every long session does. Discord then resets the sole member's group (op 24 with epoch 1, op
// 21 with transition 0: discord/dave-protocol, protocol.md, "Sole member reset"; the peer's
// dave.ts) and creates a new group when the players come back. The bot keeps recording through
// it and decrypts the speech after the break under the new group's keys.
describe.runIf(hasEspeak)(`a break that leaves the bot alone in a DAVE channel (${testMode} mode)`, () => {
  let rig: VoiceRig;
  let table: VoiceTable;
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 14),
    name: 'Long Campaign',
    ownerId: '2001',
    channels: [
      { id: '4201', name: 'table-talk', type: 0 },
      { id: '4202', name: 'Crypt', type: 2 },
    ],
    members: [
      { id: '2001', username: 'matt', nick: 'Matt' },
      { id: '2002', username: 'laura', nick: 'Laura' },
    ],
  };
  const matt = { key: '2001', displayName: 'Matt', userId: '2001' };
  const laura = { key: '2002', displayName: 'Laura', userId: '2002' };

  beforeAll(async () => {
    rig = await startVoiceRig(guild);
    rig.discord.voice.daveGuilds.add(guild.id);
    await waitFor(() => rig.discord.commands.has('global'), 30_000);
    table = voiceTable(rig.discord, guild.id, '4202', { dave: true });
  }, 180_000);

  afterAll(async () => {
    await table?.close();
    await rig?.stop();
  });

  it('records on through the sole-member reset and transcribes the players after the break', async () => {
    const { discord, deepgram, system, owner } = rig;
    const bot = discord.botUser.id;
    const turns: Turn[] = [
      { speaker: matt, text: 'Let us take a short break' },
      { speaker: laura, text: 'We are back from the break' },
      { speaker: matt, text: 'The door creaks open again' },
    ];
    await table.join('2001');
    await table.join('2002');
    const spoken = await table.prepare(turns);
    deepgram.script(spoken);
    const started = await discord.command(guild.id, '4201', '2001', 'start', { name: 'Break' });
    const tid = sessionIdIn(started.content);
    const room = await discord.voice.daveRoom(guild.id, '4202')!;
    const settled = () => room.leaves.has(bot) && room.leaves.size === 3 && !room.busy();
    const viewer = new LiveViewer(system.url, tid, owner);
    try {
      await waitFor(settled, 60_000);
      await table.play([spoken[0]!]);
      await viewer.untilLines(1, 30_000);

      // The break: both leave; the bot is alone, its group reset, and it has none.
      await table.leave('2001');
      await table.leave('2002');
      await waitFor(() => room.resets.includes(bot) && room.epoch === null && !room.busy(), 30_000);
      expect(room.leaves.size).toBe(0);

      // Back: a new group (the bot's fresh key package among the pending members').
      await table.join('2002');
      await table.join('2001');
      await waitFor(settled, 60_000);
      await table.play(spoken.slice(1), { pauseSeconds: 1.5 });
      await viewer.untilLines(3, 30_000);
      expect(viewer.ordered().map((l) => [l.speaker_info?.displayName, l.text])).toEqual(
        turns.map((t) => [t.speaker.displayName, t.text]),
      );
    } finally {
      viewer.close();
    }
    const stopped = await discord.command(guild.id, '4201', '2001', 'stop');
    expect(stopped.content).toContain('Recording stopped');
    const transcript = await apiCall<Transcript>(system.url, 'GET', `/transcripts/${tid}`, owner);
    expect(transcript.body.content.split('\n')).toHaveLength(3);
    // One reset, the bot's; it never rejoined (one voice identify) and the service is healthy.
    expect(room.resets).toEqual([bot]);
    const identifies = discord.voice.events.filter(
      (e) => e.userId === bot && e.guildId === guild.id && e.kind === 'identify',
    );
    expect(identifies).toHaveLength(1);
    expect((await fetch(`${system.url}/api/health`)).status).toBe(200);
  }, 300_000);
});
