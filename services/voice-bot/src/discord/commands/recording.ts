import { recordingLinksRpc, type RecordingFile } from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import {
  MessageFlags,
  PermissionFlagsBits,
  type APIEmbed,
  type AutocompleteInteraction,
  type ChatInputCommandInteraction,
} from 'discord.js';
import type { BotCore } from '../core.ts';

const canManage = (i: { memberPermissions: { has(p: bigint): boolean } | null }): boolean =>
  i.memberPermissions?.has(PermissionFlagsBits.ManageGuild) ?? false;

/** The links as an embed: one line per speaker (Ogg, FLAC), the mix, the zip; at most 4096 characters. */
function linksEmbed(name: string, files: RecordingFile[], expiresAt: string, base: string): APIEmbed {
  const url = (f: RecordingFile | undefined) => (f ? `${base}${f.path}` : '');
  const find = (file: string) => files.find((f) => f.file === file);
  const speakers = [...new Set(files.flatMap((f) => (f.speaker === null ? [] : [f.speaker])))];
  const lines = speakers.map((s) => {
    const of = files.filter((f) => f.speaker === s);
    return `**${s}**: [Ogg](${url(of.find((f) => f.file.endsWith('.ogg')))}) · [FLAC](${url(of.find((f) => f.file.endsWith('.flac')))})`;
  });
  const tail = [
    '',
    `**Everyone mixed**: [Ogg](${url(find('mixed.ogg'))}) · [FLAC](${url(find('mixed.flac'))})`,
    `**All tracks (zip of the Ogg files)**: [all.zip](${url(find('all.zip'))})`,
    '',
    `The links work for anyone who has them until <t:${Math.floor(Date.parse(expiresAt) / 1000)}:f>.`,
  ];
  let shown = lines;
  while ([...shown, ...tail].join('\n').length > 4000 && shown.length > 0) shown = shown.slice(0, -1);
  if (shown.length < lines.length) {
    shown = [...shown, `…and ${lines.length - shown.length} more speakers: their tracks are in the zip.`];
  }
  return { title: `Recording of “${name}”`.slice(0, 256), description: [...shown, ...tail].join('\n') };
}

/**
 * `/recording [session]`: download links (signed by the transcript service, expiring) for a
 * bot session of this server: each speaker's track as Ogg and FLAC, everyone mixed, and a zip.
 * Only the session's owner, or a member who can manage the server, gets them; only they see
 * the reply.
 */
export async function recordingCommand(
  core: BotCore,
  interaction: ChatInputCommandInteraction<'cached'>,
): Promise<void> {
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const user = await core.owner(interaction.user.id);
  const manage = canManage(interaction);
  const asked = interaction.options.getString('session')?.trim() ?? '';
  const isId = /^[0-9a-f-]{36}$/i.test(asked);
  const found = await call(core.o.bus, recordingLinksRpc, {
    guild_id: interaction.guildId,
    owner_id: user?.id ?? null,
    any_owner: manage,
    ...(asked ? (isId ? { id: asked } : { q: asked }) : {}),
    limit: 1,
    sign: true,
    ...(core.o.recordingLinkTtlSeconds ? { ttl_s: core.o.recordingLinkTtlSeconds } : {}),
  });
  const session = found.sessions[0];
  if (!session || !found.links) {
    const who =
      'Recordings are downloaded by the member who recorded the session, or by someone who can manage this server';
    await interaction.editReply(
      asked
        ? `No recording of a session named “${asked}” is yours to download here. ${who}.`
        : `No recording of this server is yours to download. ${who}${user || manage ? '' : ` (${core.signInHint()})`}.`,
    );
    return;
  }
  await interaction.editReply({
    content: `Download links for “${session.name}” (only you can see this):`,
    embeds: [linksEmbed(session.name, found.links.files, found.links.expires_at, core.o.publicUrl ?? '')],
    allowedMentions: { parse: [] },
  });
}

/** /recording's session option: the sessions of this server the caller may download, by name. */
export async function recordingAutocomplete(
  core: BotCore,
  interaction: AutocompleteInteraction,
): Promise<{ name: string; value: string }[]> {
  if (!interaction.guildId) return [];
  const user = await core.owner(interaction.user.id);
  const manage = canManage(interaction);
  if (!user && !manage) return [];
  const typed = String(interaction.options.getFocused() ?? '').trim();
  const found = await call(core.o.bus, recordingLinksRpc, {
    guild_id: interaction.guildId,
    owner_id: user?.id ?? null,
    any_owner: manage,
    ...(typed ? { q: typed } : {}),
    limit: 25,
    sign: false,
  });
  return found.sessions.map((s) => ({
    name: `${s.name} (${s.started_at.slice(0, 10)})`.slice(0, 100),
    value: s.transcript_id,
  }));
}
