import { MessageFlags, type ChatInputCommandInteraction } from 'discord.js';
import { loadConsent, setConsent } from '../consent.ts';
import type { BotCore } from '../core.ts';

type Cmd = ChatInputCommandInteraction<'cached'>;

/** `/status`: what is recorded here, where to read it, and whether the caller is on the record. */
export async function statusCommand(core: BotCore, interaction: Cmd): Promise<void> {
  const g = core.guildVoice(interaction.guildId);
  await loadConsent(core, interaction.guildId);
  const mode = g.recording?.consentMode ?? (await core.settings.get(interaction.guildId)).consent_mode;
  const you = g.paused.has(interaction.user.id)
    ? 'You are off the record (`/onrecord` to resume).'
    : mode === 'opt_in' && !g.optedIn.has(interaction.user.id)
      ? 'You are not recorded: this server records only members who opted in (`/onrecord` or Record me).'
      : 'You are on the record (`/offrecord` to pause).';
  let content: string;
  if (g.recording) {
    const s = g.recording.live.stats();
    const mins = Math.floor(s.elapsedSeconds / 60);
    const secs = Math.floor(s.elapsedSeconds % 60);
    const heard = g.recording.heard();
    content = [
      `🔴 Recording <#${g.recording.state.channel_id}> for <@${g.recording.state.owner_discord_id}> as “${g.recording.state.name}” for ${mins}:${String(secs).padStart(2, '0')}.`,
      `Lines so far: ${s.finals}. Heard: ${heard.length ? heard.join(', ') : 'nobody yet'}.`,
      `Live: ${core.sessionUrl(g.recording.state.transcript_id)}`,
      you,
    ].join('\n');
  } else if (g.link) {
    content = `In <#${g.link.channelId}>, not recording. \`/start\` begins.\n${you}`;
  } else {
    content = `Not in a voice channel. \`/join\` or \`/start\` from a voice channel.\n${you}`;
  }
  await interaction.reply({ content, flags: MessageFlags.Ephemeral });
}

/** `/offrecord` and `/onrecord`: the caller's own voice paused or resumed. */
export async function consentCommand(core: BotCore, interaction: Cmd, off: boolean): Promise<void> {
  const g = core.guildVoice(interaction.guildId);
  const userId = interaction.user.id;
  // Stored: the choice holds in every later recording here, across restarts of the bot.
  await setConsent(core, interaction.guildId, userId, off ? 'out' : 'in');
  if (off) {
    await interaction.reply({
      content:
        'You are **off the record**: nothing you say is captured or transcribed until you run `/onrecord`.',
      flags: MessageFlags.Ephemeral,
    });
  } else {
    await interaction.reply({
      content: g.recording
        ? 'You are **back on the record**: what you say is transcribed again.'
        : 'You are on the record again for the next recording.',
      flags: MessageFlags.Ephemeral,
    });
  }
}
