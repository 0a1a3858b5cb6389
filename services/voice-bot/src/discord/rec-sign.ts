import { Routes, type Guild } from 'discord.js';
import type { BotCore } from './core.ts';

const REC = '🔴 REC';
/** The nicknames the bot had before it started recording, by guild. */
const before = new Map<string, string | null>();

/**
 * Shows the recording in the member list: the bot's nickname in the guild gets a "🔴 REC" prefix
 * while it records (PATCH /guilds/{id}/members/@me), and is put back afterwards. Failures
 * (no Change Nickname permission) are logged: the announcement still says it.
 */
export async function showRecording(core: BotCore, guild: Guild, on: boolean): Promise<void> {
  const me = guild.members.me;
  const name = me?.nickname ?? core.client.user?.username ?? 'Chronicler';
  let nick: string | null;
  if (on) {
    if (!before.has(guild.id)) before.set(guild.id, me?.nickname ?? null);
    const base = before.get(guild.id) ?? core.client.user?.username ?? 'Chronicler';
    nick = `${REC} ${base.startsWith(REC) ? base.slice(REC.length).trim() : base}`.slice(0, 32);
  } else {
    if (!before.has(guild.id) && !name.startsWith(REC)) return;
    nick = before.get(guild.id) ?? null;
    before.delete(guild.id);
  }
  await core.client.rest
    .patch(Routes.guildMember(guild.id, '@me'), { body: { nick } })
    .catch((err: unknown) => core.log.warn({ err, guildId: guild.id }, 'recording nickname not set'));
}
