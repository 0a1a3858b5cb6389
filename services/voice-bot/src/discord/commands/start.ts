import { findGroupsRpc, getGroupRpc, groupKeytermsRpc } from '@chronicler/contracts';
import { call, type Logger } from '@chronicler/kit';
import { MessageFlags, PermissionFlagsBits, type ChatInputCommandInteraction } from 'discord.js';
import { announceRecording } from '../announce.ts';
import { loadConsent } from '../consent.ts';
import type { BotCore } from '../core.ts';
import { beginRecording } from '../lifecycle.ts';
import { admit } from '../limits.ts';
import { ensureLink } from '../links.ts';
import { describeMissing, missingPermissions } from '../permissions.ts';
import type { Recording } from '../recording.ts';

/** The caller's voice channel in this guild, if they are in one. */
export function callerChannel(interaction: ChatInputCommandInteraction<'cached'>): string | null {
  return interaction.guild.voiceStates.cache.get(interaction.user.id)?.channelId ?? null;
}

/** `/start [group] [name]`: records the caller's voice channel into their Chronicler account. */
export async function startCommand(
  core: BotCore,
  interaction: ChatInputCommandInteraction<'cached'>,
  log: Logger,
): Promise<void> {
  const g = core.guildVoice(interaction.guildId);
  if (g.recording) {
    const r = g.recording.state;
    await interaction.reply({
      content: `Already recording in <#${r.channel_id}> (started by <@${r.owner_discord_id}>): ${core.sessionUrl(r.transcript_id)}`,
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  const channelId = callerChannel(interaction) ?? g.link?.channelId ?? null;
  if (!channelId) {
    await interaction.reply({
      content: 'Join a voice channel first, then run `/start` again.',
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const settings = await core.settings.get(interaction.guildId);
  if (!mayStart(interaction, settings.starter_roles)) {
    await interaction.editReply(
      `Only members with ${settings.starter_roles.map((r) => `<@&${r}>`).join(', ')} (or who can manage this server) may start a recording here. Nothing was recorded.`,
    );
    return;
  }
  const user = await core.owner(interaction.user.id);
  if (!user) {
    await interaction.editReply(
      `You need a Chronicler account to record: ${core.signInHint()}, then run \`/start\` again. Nothing was recorded.`,
    );
    return;
  }
  const groupName = interaction.options.getString('group')?.trim() || null;
  let group: { id: string; name: string } | null = null;
  if (groupName) {
    const found = await call(core.o.bus, findGroupsRpc, { owner_id: user.id, name: groupName, limit: 1 });
    group = found.items[0] ?? null;
    if (!group) {
      const mine = await call(core.o.bus, findGroupsRpc, { owner_id: user.id, limit: 10 });
      const list = mine.items.map((i) => `“${i.name}”`).join(', ');
      await interaction.editReply(
        `You have no group named “${groupName}”. ${list ? `Your groups: ${list}.` : 'You have no groups yet.'} Nothing was recorded: run \`/start\` again with one of them, or without a group.`,
      );
      return;
    }
  } else if (settings.default_group_id) {
    // The server's default group, when it is one of the starter's own.
    group = await ownGroup(core, user.id, settings.default_group_id);
  }
  let keyterms: string[] = [];
  if (group) {
    keyterms = await call(
      core.o.bus,
      groupKeytermsRpc,
      { owner_id: user.id, group_id: group.id },
      { timeoutMs: 2000 },
    )
      .then((r) => r.keyterms)
      .catch(() => []);
  }
  const admission = await admit(core, interaction.guildId, user.id, channelId);
  if ('refused' in admission) {
    await interaction.editReply(admission.refused);
    return;
  }
  const textChannelId = settings.announcement_channel_id ?? interaction.channelId;
  const missing = missingPermissions(interaction.guild, channelId, textChannelId);
  if (missing.some((p) => 'required' in p)) {
    void admission.slot?.release().catch(() => false);
    await interaction.editReply(`${describeMissing(missing)} Nothing was recorded.`);
    return;
  }
  const { slot } = admission;
  let rec: Recording | null = null;
  const name = interaction.options.getString('name')?.trim() || core.o.defaultName;
  try {
    if (g.recording) {
      await interaction.editReply('Someone started a recording here a moment ago; see `/status`.');
      return;
    }
    await loadConsent(core, interaction.guildId);
    await ensureLink(core, interaction.guild, channelId);
    rec = await beginRecording(core, interaction.guild, {
      ownerId: user.id,
      ownerDiscordId: interaction.user.id,
      channelId,
      textChannelId,
      name,
      groupId: group?.id ?? null,
      keyterms,
      paused: g.paused,
      consentMode: settings.consent_mode,
      language: settings.language,
      slot,
    });
  } finally {
    // A slot no recording took (none started) is the owner's again.
    if (!rec) void slot?.release().catch(() => false);
  }
  log.info({ transcriptId: rec.state.transcript_id, group: group?.id ?? null }, 'recording started');
  // Everyone in the channel hears of it before the owner gets the link.
  await announceRecording(core, rec, `<@${interaction.user.id}>`);
  const url = core.sessionUrl(rec.state.transcript_id);
  await interaction.editReply(
    `Recording <#${channelId}> as “${name}”${group ? ` in your group “${group.name}”` : ''}. Read it live: ${url}\n\`/stop\` ends and saves it.` +
      (missing.length ? `\n⚠️ ${describeMissing(missing)}` : ''),
  );
}

/** Starter roles set: only members with one of them, or Manage Server, may start. */
function mayStart(interaction: ChatInputCommandInteraction<'cached'>, roles: string[]): boolean {
  if (roles.length === 0) return true;
  if (interaction.memberPermissions?.has(PermissionFlagsBits.ManageGuild)) return true;
  return roles.some((r) => interaction.member.roles.cache.has(r));
}

/** The group, if it is one of the user's (a server's default may be someone else's). */
export async function ownGroup(
  core: BotCore,
  ownerId: string,
  groupId: string,
): Promise<{ id: string; name: string } | null> {
  const found = await call(core.o.bus, getGroupRpc, { owner_id: ownerId, id: groupId }).catch(() => null);
  return found ? { id: found.id, name: found.name } : null;
}

/** Group names for `/start group:` as the owner types. */
export async function startAutocomplete(
  core: BotCore,
  userId: string,
  typed: string,
): Promise<{ name: string; value: string }[]> {
  const user = await core.owner(userId).catch(() => null);
  if (!user) return [];
  const found = await call(core.o.bus, findGroupsRpc, { owner_id: user.id, prefix: typed, limit: 25 });
  return found.items.map((i) => ({ name: i.name.slice(0, 100), value: i.name.slice(0, 100) }));
}
