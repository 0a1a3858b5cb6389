import type { Turn } from '@chronicler/voice-bot/pipeline';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { voiceTable, type VoiceTable } from '../peers/discord-voice/table.ts';
import { guildIdForShard, type PeerGuild } from '../peers/discord.ts';
import { apiCall } from '../support/api.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { testMode, waitFor } from '../support/system.ts';
import { sessionIdIn, startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

const hasEspeak = existsSync('/usr/bin/espeak-ng');

// /offrecord is stored (group service), not kept in the bot's memory: the voice bot as its own
// process is restarted after a member went off the record, and the next recording leaves them
// out. Cluster mode: only there is the bot a process of its own to restart.
describe.runIf(hasEspeak && testMode === 'cluster')('/offrecord across a restart of the bot', () => {
  let rig: VoiceRig;
  let table: VoiceTable;
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 37),
    name: 'Restart Table',
    ownerId: '2001',
    channels: [
      { id: '5101', name: 'table-talk', type: 0 },
      { id: '5102', name: 'Tavern', type: 2 },
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
    await waitFor(() => rig.discord.commands.has('global'), 30_000);
    table = voiceTable(rig.discord, guild.id, '5102');
  }, 180_000);
  afterAll(async () => {
    await table?.close();
    await rig?.stop();
  });

  it('leaves out a member who ran /offrecord before the bot restarted', async () => {
    const off = await rig.discord.command(guild.id, '5101', '2002', 'offrecord');
    expect(off.content).toContain('off the record');

    const bot = rig.system.children.get('voice-bot')!;
    const exited = new Promise((resolve) => bot.once('exit', resolve));
    bot.kill('SIGTERM');
    await exited;
    const identifies = rig.discord.identifies.length;
    await rig.system.spawn!('voice-bot');
    await waitFor(() => rig.discord.identifies.length > identifies, 60_000);

    await table.join('2001');
    await table.join('2002');
    const turns: Turn[] = [
      { speaker: matt, text: 'The bot is back at the table' },
      { speaker: laura, text: 'I am still off the record' },
      { speaker: matt, text: 'And the story goes on' },
    ];
    const spoken = await table.prepare(turns);
    rig.deepgram.script([spoken[0]!, spoken[2]!]);
    const streamsBefore = rig.deepgram.streams.length;
    const started = await rig.discord.command(guild.id, '5101', '2001', 'start');
    const tid = sessionIdIn(started.content);
    await waitFor(
      async () => (await apiCall(rig.system.url, 'GET', `/transcripts/${tid}`, rig.owner)).status === 200,
    );
    const viewer = new LiveViewer(rig.system.url, tid, rig.owner);
    try {
      await table.play(spoken, { pauseSeconds: 1.2 });
      await viewer.untilLines(2, 30_000);
      await rig.discord.command(guild.id, '5101', '2001', 'stop');
      await viewer.untilEnded(30_000);
      expect(viewer.ordered().map((l) => [l.speaker_info?.displayName, l.text])).toEqual([
        ['Matt', turns[0]!.text],
        ['Matt', turns[2]!.text],
      ]);
    } finally {
      viewer.close();
    }
    // Laura's voice never reached the provider.
    expect(rig.deepgram.streams.length - streamsBefore).toBe(1);
    const status = await rig.discord.command(guild.id, '5101', '2002', 'status');
    expect(status.content).toContain('You are off the record');
  }, 240_000);
});
