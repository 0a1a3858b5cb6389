import { PermissionFlagsBits, type Guild } from 'discord.js';

/**
 * What the bot uses Discord permissions for, and what does not work without each: the invite
 * asks for exactly these (README, "Trying it against real Discord"), and `/start` names the ones
 * missing in the channels it records and posts in. The bot stays muted, so it asks no Speak.
 */
export const BOT_PERMISSIONS = [
  {
    flag: PermissionFlagsBits.ViewChannel,
    name: 'View Channel',
    in: 'voice',
    without: 'I cannot see the voice channel',
    required: true,
  },
  {
    flag: PermissionFlagsBits.Connect,
    name: 'Connect',
    in: 'voice',
    without: 'I cannot join the voice channel',
    required: true,
  },
  {
    flag: PermissionFlagsBits.SendMessages,
    name: 'Send Messages',
    in: 'text',
    without:
      'the recording notice, the recap and the end of the recording are not posted in the text channel',
  },
  {
    flag: PermissionFlagsBits.EmbedLinks,
    name: 'Embed Links',
    in: 'text',
    without: 'the recap and `/recording` show no embeds',
  },
  {
    flag: PermissionFlagsBits.AttachFiles,
    name: 'Attach Files',
    in: 'text',
    without: 'the transcript file is not posted at the end',
  },
  {
    flag: PermissionFlagsBits.ChangeNickname,
    name: 'Change Nickname',
    in: 'guild',
    without: 'my 🔴 REC nickname does not show that I am recording',
  },
] as const;

/** The invite's permissions integer (the sum of BOT_PERMISSIONS' flags). */
export const INVITE_PERMISSIONS = BOT_PERMISSIONS.reduce((n, p) => n | p.flag, 0n);

export type MissingPermission = (typeof BOT_PERMISSIONS)[number];

/** The bot's permissions missing for recording `voiceChannelId` and posting in `textChannelId`. */
export function missingPermissions(
  guild: Guild,
  voiceChannelId: string,
  textChannelId: string,
): MissingPermission[] {
  const me = guild.members.me;
  if (!me) return [];
  const voice = guild.channels.cache.get(voiceChannelId);
  const text = guild.channels.cache.get(textChannelId);
  return BOT_PERMISSIONS.filter((p) => {
    const perms = p.in === 'guild' ? me.permissions : (p.in === 'voice' ? voice : text)?.permissionsFor(me);
    return perms ? !perms.has(p.flag) : false;
  });
}

/** "Missing permissions: X (what breaks); Y (...)." */
export function describeMissing(missing: MissingPermission[]): string {
  return `Missing permissions: ${missing.map((p) => `**${p.name}** (${p.without})`).join('; ')}. A server admin can grant them to my role.`;
}
