import type { VoiceState } from 'discord.js';
import { noticeText } from './announce.ts';
import type { AutoRecorder } from './auto-record.ts';
import { sendNotice } from './consent.ts';
import type { BotCore } from './core.ts';
import { disconnectedByOthers } from './links.ts';

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
  const isBot = userId === core.client.user?.id || Boolean(after.member?.user.bot);
  if (rec && joined && !isBot && after.channelId === rec.state.channel_id) {
    const g = core.guildVoice(guild.id);
    const due =
      rec.consentMode === 'opt_in'
        ? !g.optedIn.has(userId) && !g.paused.has(userId)
        : !rec.noticed.has(userId) && !g.paused.has(userId);
    if (due) {
      const sent = await sendNotice(core, guild.id, userId, noticeText(rec));
      if (sent) rec.noticed.add(userId);
    }
  }
  await auto.check(guild);
}
