import type { VoiceState } from 'discord.js';
import { noticeText } from './announce.ts';
import type { AutoRecorder } from './auto-record.ts';
import { sendNotice } from './consent.ts';
import type { BotCore } from './core.ts';
import { disconnectedByOthers, movedByOthers } from './links.ts';
import type { Recording } from './recording.ts';

/**
 * A member joined, left or moved: a newcomer to a recorded channel gets the notice (DM, or the
 * channel) before any frame of theirs is used (announce mode: held back until it is sent;
 * opt-in: nothing until they press Record me); then the auto-record rules are looked at.
 */
export async function onVoiceState(
  core: BotCore,
  auto: AutoRecorder,
  before: VoiceState,
  after: VoiceState,
): Promise<void> {
  const guild = after.guild;
  const userId = after.id;
  const rec = core.guildVoice(guild.id).recording;
  const joined = after.channelId !== null && after.channelId !== before.channelId;
  // The bot itself out of its channel without asking: a moderator's Disconnect.
  if (userId === core.client.user?.id && before.channelId && after.channelId === null) {
    await disconnectedByOthers(core, guild, before.channelId);
  }
  // The bot itself into another channel without asking: a moderator's move (Move Members).
  if (userId === core.client.user?.id && before.channelId && after.channelId && joined) {
    const moved = await movedByOthers(core, guild, before.channelId, after.channelId);
    // Everyone already there is a newcomer to the recording: the consent rules apply to them.
    if (moved) {
      for (const [memberId, vs] of guild.voiceStates.cache) {
        if (vs.channelId !== after.channelId || memberId === userId || vs.member?.user.bot) continue;
        await noticeIfDue(core, guild.id, moved, memberId);
      }
    }
  }
  const isBot = userId === core.client.user?.id || Boolean(after.member?.user.bot);
  if (rec && joined && !isBot && after.channelId === rec.state.channel_id) {
    await noticeIfDue(core, guild.id, rec, userId);
  }
  await auto.check(guild);
}

/**
 * A member new to the recorded channel is told it is recorded, with the buttons, unless their
 * choice already stands (announce mode: noticed or paused; opt-in: opted in or paused).
 */
async function noticeIfDue(core: BotCore, guildId: string, rec: Recording, userId: string): Promise<void> {
  const g = core.guildVoice(guildId);
  const due =
    rec.consentMode === 'opt_in'
      ? !g.optedIn.has(userId) && !g.paused.has(userId)
      : !rec.noticed.has(userId) && !g.paused.has(userId);
  if (due) {
    const sent = await sendNotice(core, guildId, userId, noticeText(rec));
    if (sent) rec.noticed.add(userId);
  }
}
