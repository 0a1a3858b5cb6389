import { MessageFlags, type AutocompleteInteraction, type ChatInputCommandInteraction } from 'discord.js';
import type { BotCore } from '../core.ts';
import { guildRecaps, recapEmbed } from '../recap-post.ts';

/**
 * `/recap [session]`: posts the recap of one of the caller's recorded sessions of this server
 * in the channel (the latest by default; `session` is a name the autocomplete offers, or an id).
 */
export async function recapCommand(
  core: BotCore,
  interaction: ChatInputCommandInteraction<'cached'>,
): Promise<void> {
  const user = await core.owner(interaction.user.id);
  if (!user) {
    await interaction.reply({
      content: `Recaps are of your own sessions: ${core.signInHint()} first.`,
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  const asked = interaction.options.getString('session')?.trim() ?? '';
  const isId = /^[0-9a-f-]{36}$/i.test(asked);
  const found = await guildRecaps(core, user.id, interaction.guildId, {
    ...(asked ? (isId ? { id: asked } : { q: asked }) : {}),
    limit: 25,
  });
  const recap =
    isId || !asked ? found[0] : (found.find((r) => r.name.toLowerCase() === asked.toLowerCase()) ?? found[0]);
  if (!recap) {
    await interaction.reply({
      content: asked
        ? `You have no recorded session of this server named “${asked}”.`
        : 'You have no recorded session in this server yet.',
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  if (!recap.summary.trim()) {
    await interaction.reply({
      content: `“${recap.name}” has no summary yet: ${core.sessionUrl(recap.transcript_id)}`,
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  await interaction.reply({
    embeds: [recapEmbed(recap, core.sessionUrl(recap.transcript_id), core.o.publicUrl)],
    allowedMentions: { parse: [] },
  });
}

/** /recap's session option: the caller's sessions of this server whose name contains what was typed. */
export async function recapAutocomplete(
  core: BotCore,
  interaction: AutocompleteInteraction,
): Promise<{ name: string; value: string }[]> {
  if (!interaction.guildId) return [];
  const user = await core.owner(interaction.user.id);
  if (!user) return [];
  const typed = String(interaction.options.getFocused() ?? '').trim();
  const found = await guildRecaps(core, user.id, interaction.guildId, {
    ...(typed ? { q: typed } : {}),
    limit: 25,
  });
  return found.map((r) => ({
    name: `${r.name} (${r.started_at.slice(0, 10)})`.slice(0, 100),
    value: r.transcript_id,
  }));
}
