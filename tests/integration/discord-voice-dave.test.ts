import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guildIdForShard, startDiscordPeer, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
import type { DaveRoom } from '../peers/discord-voice/dave.ts';
import { DaveOp } from '../peers/discord-voice/dave-protocol.ts';
import { voiceTable, type VoiceTable } from '../peers/discord-voice/table.ts';
import { waitFor } from '../support/system.ts';

// DAVE's group life cycle as Discord's voice gateway runs it (discord/dave-protocol, protocol.md),
// between members only, each a real @discordjs/voice client with @snazzah/davey: before a group
// exists every pending member is sent the others' add proposals and the first valid commit wins;
// a member who leaves before the commit has its add revoked; a transition waits for its members'
// ready only until the timeout; the member left alone is reset (op 24 epoch 1, op 21 transition
// 0), and the group is created again when others come back. That all members are in one group
// shows in their voice privacy code, the epoch authenticator each derives from its own state.
describe('the Discord peer’s DAVE group life cycle', () => {
  let discord: DiscordPeer;
  let table: VoiceTable;
  const guild: PeerGuild = {
    id: guildIdForShard(0, 1, 41),
    name: 'Sealed Hall',
    ownerId: '2001',
    channels: [
      { id: '9001', name: 'table-talk', type: 0 },
      { id: '9002', name: 'Crypt', type: 2 },
    ],
    members: [
      { id: '2001', username: 'matt', nick: 'Matt' },
      { id: '2002', username: 'laura', nick: 'Laura' },
      { id: '2003', username: 'travis', nick: 'Travis' },
    ],
  };
  const room = (): Promise<DaveRoom> => discord.voice.daveRoom(guild.id, '9002')!;
  /** Each member's voice privacy code (null while it has no group). */
  const codes = (ids: string[]) => ids.map((id) => table.member(id).connection.voicePrivacyCode ?? null);
  const oneGroup = (ids: string[]) => {
    const c = codes(ids);
    return c[0] !== null && c.every((x) => x === c[0]);
  };

  beforeAll(async () => {
    discord = await startDiscordPeer({ voiceHeartbeatMs: 1000 });
    discord.addGuild(guild);
    discord.voice.daveGuilds.add(guild.id);
    table = voiceTable(discord, guild.id, '9002', { dave: true });
  }, 60_000);
  afterAll(async () => {
    await table?.close();
    await discord?.close();
  });

  it('sends every pending member the others’ adds, batched, takes the first valid commit, and revokes the add of one who left', async () => {
    const drop = discord.voice.faults.daveDropFrom;
    // Their commits are lost for now, so that the proposals pile up before a group exists.
    for (const id of ['2001', '2002', '2003']) drop.set(id, new Set([DaveOp.MlsCommitWelcome]));
    await table.join('2001');
    const r = await room();
    await table.join('2002');
    await waitFor(() => r.proposalsSent.filter((p) => p.op === 'append').length === 2, 20_000);
    await table.join('2003');
    // Travis, pending, got the two in-flight adds in one op 27; each of the others got his.
    await waitFor(() => r.proposalsSent.some((p) => p.to === '2003'), 20_000);
    expect(r.proposalsSent.filter((p) => p.op === 'append')).toEqual([
      { to: '2001', op: 'append', count: 1 },
      { to: '2002', op: 'append', count: 1 },
      { to: '2001', op: 'append', count: 1 },
      { to: '2002', op: 'append', count: 1 },
      { to: '2003', op: 'append', count: 2 },
    ]);
    expect(r.epoch).toBeNull();
    // Each committed to what it had (Matt and Laura twice, Travis once), all lost.
    const dropped = (id: string) =>
      discord.voice.events.filter((e) => e.userId === id && e.kind === 'dropped').length;
    await waitFor(() => dropped('2001') === 2 && dropped('2002') === 2 && dropped('2003') === 1, 20_000);
    // Their commits get through from now on; Travis leaves before any did: his add is revoked
    // where it was sent, and the commit that wins names exactly the proposals left.
    drop.clear();
    await table.leave('2003');
    await waitFor(() => r.epoch !== null && !r.busy(), 20_000);
    expect(r.proposalsSent.filter((p) => p.op === 'revoke').slice(0, 2)).toEqual([
      { to: '2001', op: 'revoke', count: 1 },
      { to: '2002', op: 'revoke', count: 1 },
    ]);
    expect([...r.leaves.keys()].sort()).toEqual(['2001', '2002']);
    // Stale commits (naming Travis's add) were not broadcast; nor were davey's commits after the
    // revoke, which lack the welcome their add needs (dave.ts, refuseNoWelcome): the round was
    // proposed again and a commit with its welcome won.
    expect(new Set(r.refusedCommits)).toEqual(new Set(['2001', '2002']));
    await waitFor(() => oneGroup(['2001', '2002']), 20_000);
  }, 120_000);

  it('executes a transition at the timeout when a member’s ready never arrives', async () => {
    const r = await room();
    const timedOut = r.timedOut.length;
    discord.voice.faults.daveDropFrom.set('2002', new Set([DaveOp.TransitionReady]));
    try {
      await table.join('2003');
      await waitFor(() => r.leaves.has('2003') && !r.busy(), 20_000);
    } finally {
      discord.voice.faults.daveDropFrom.clear();
    }
    expect(r.timedOut.length).toBe(timedOut + 1);
    // Laura had processed the commit: the execute brings her to the new epoch with the others.
    await waitFor(() => oneGroup(['2001', '2002', '2003']), 20_000);
  }, 120_000);

  it('resets the member left alone (op 24 epoch 1, op 21 transition 0) and creates the group again when the others return', async () => {
    const r = await room();
    const before = codes(['2001'])[0];
    await table.leave('2002');
    await waitFor(() => !r.leaves.has('2002') && !r.busy(), 20_000);
    await table.leave('2003');
    await waitFor(() => r.resets.length > 0 && r.epoch === null, 20_000);
    expect(r.resets).toEqual(['2001']);
    expect(r.leaves.size).toBe(0);
    // Matt's client dropped the group it held alone (it has none until someone comes back).
    await waitFor(() => codes(['2001'])[0] === null, 20_000);
    await table.join('2002');
    await table.join('2003');
    await waitFor(() => r.leaves.size === 3 && !r.busy(), 30_000);
    await waitFor(() => oneGroup(['2001', '2002', '2003']), 20_000);
    expect(codes(['2001'])[0]).not.toBe(before);
  }, 120_000);
});
