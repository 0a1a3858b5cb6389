import { Routes } from 'discord.js';
import { consentButtons } from './consent.ts';
import type { BotCore } from './core.ts';
import type { Recording } from './recording.ts';

/**
 * The recording's announcement, with the Record me / Not me buttons, in the server's
 * announcement channel (else where it was started): who records, into what, and in which
 * consent mode. Members who join later get a notice of their own (presence.ts).
 */
export async function announceRecording(core: BotCore, rec: Recording, startedBy: string): Promise<void> {
  const s = rec.state;
  const optIn = rec.consentMode === 'opt_in';
  const content = [
    `🔴 **Recording started** in <#${s.channel_id}> by ${startedBy}: what is said there is transcribed into <@${s.owner_discord_id}>'s Chronicler session “${s.name}”.`,
    optIn
      ? '**Only members who press Record me are recorded**: nobody else’s voice is captured. `/offrecord` takes you off again.'
      : "Don't want to be recorded? Press Not me or run `/offrecord` to pause your voice, `/onrecord` to resume it.",
  ].join('\n');
  await core.client.rest
    .post(Routes.channelMessages(s.text_channel_id), {
      body: { content, components: consentButtons(s.guild_id), allowed_mentions: { parse: [] } },
    })
    .catch((err: unknown) => core.log.warn({ err, channelId: s.text_channel_id }, 'announcement not sent'));
}

/** What a late joiner is told, by consent mode. */
export function noticeText(rec: Recording): string {
  const s = rec.state;
  return rec.consentMode === 'opt_in'
    ? `🔴 <#${s.channel_id}> is being recorded into <@${s.owner_discord_id}>'s Chronicler session “${s.name}”. Your voice is **not** recorded unless you press Record me.`
    : `🔴 <#${s.channel_id}> is being recorded into <@${s.owner_discord_id}>'s Chronicler session “${s.name}”. Your voice is recorded from now on; press Not me (or run \`/offrecord\`) if you don't want that.`;
}
