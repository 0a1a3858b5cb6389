import { MessageFlags, type ChatInputCommandInteraction } from 'discord.js';
import type { BotCore } from '../core.ts';
import { stopRecording } from '../lifecycle.ts';
import { ensureLink } from '../links.ts';
import { callerChannel } from './start.ts';

type Cmd = ChatInputCommandInteraction<'cached'>;

/** `/join`: into the caller's voice channel, not recording yet. */
export async function joinCommand(core: BotCore, interaction: Cmd): Promise<void> {
  const channelId = callerChannel(interaction);
  if (!channelId) {
    await interaction.reply({
      content: 'Join a voice channel first, then run `/join` again.',
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  await interaction.deferReply();
  const g = core.guildVoice(interaction.guildId);
  if (g.recording && g.link && g.link.channelId !== channelId) {
    await interaction.editReply(
      `I am recording in <#${g.link.channelId}>; \`/stop\` that first to move to <#${channelId}>.`,
    );
    return;
  }
  await ensureLink(core, interaction.guild, channelId);
  await interaction.editReply(`Joined <#${channelId}>. Run \`/start\` to begin transcribing.`);
}

/** `/stop`: ends and saves the recording (its owner, or someone who can manage the server). */
export async function stopCommand(core: BotCore, interaction: Cmd): Promise<void> {
  const rec = core.guildVoice(interaction.guildId).recording;
  if (!rec) {
    await interaction.reply({ content: 'Nothing is being recorded here.', flags: MessageFlags.Ephemeral });
    return;
  }
  if (!core.mayStop(interaction, rec)) {
    await interaction.reply({
      content: `Only <@${rec.state.owner_discord_id}>, who started it, or someone who can manage this server can stop the recording.`,
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  await interaction.deferReply();
  await stopRecording(core, interaction.guildId);
  const finals = rec.live.stats().finals;
  await interaction.editReply(
    `⏹️ **Recording stopped** and saved (${finals} line${finals === 1 ? '' : 's'}). The summary is on its way: ${core.sessionUrl(rec.state.transcript_id)}`,
  );
}

/** `/leave`: stops any recording, then leaves the voice channel. */
export async function leaveCommand(core: BotCore, interaction: Cmd): Promise<void> {
  const g = core.guildVoice(interaction.guildId);
  if (!g.link && !g.recording) {
    await interaction.reply({
      content: 'I am not in a voice channel here.',
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  if (g.recording && !core.mayStop(interaction, g.recording)) {
    await interaction.reply({
      content: `I am recording for <@${g.recording.state.owner_discord_id}>; only they or someone who can manage this server can make me leave.`,
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  await interaction.deferReply();
  const rec = await stopRecording(core, interaction.guildId);
  const link = g.link;
  g.link = null;
  await link?.close();
  await interaction.editReply(
    rec
      ? `Left the voice channel. ⏹️ Recording stopped and saved: ${core.sessionUrl(rec.state.transcript_id)}`
      : 'Left the voice channel.',
  );
}
