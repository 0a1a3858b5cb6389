import { guildDirectoryKey, type GuildDirectory } from '@chronicler/contracts';
import type { Coordination, Logger } from '@chronicler/kit';
import { ChannelType, Events, type Client, type Guild } from 'discord.js';

/** Kept this long without a write; each replica rewrites its servers' directories daily. */
const TTL_MS = 3 * 86_400_000;
const REFRESH_MS = 86_400_000;
/** Changes that come together (a server set up, a role reordered) are written once. */
const SETTLE_MS = 1_000;

const TEXT = new Set<ChannelType>([ChannelType.GuildText, ChannelType.GuildAnnouncement]);
const VOICE = new Set<ChannelType>([ChannelType.GuildVoice, ChannelType.GuildStageVoice]);

/**
 * A server's text and voice channels and its roles, in the order Discord shows them. Left
 * out: categories, threads and forums (nothing is posted or recorded there), @everyone (the
 * setting is "anyone" then) and roles an integration manages (bots').
 */
function describeGuild(guild: Guild): Omit<GuildDirectory, 'updated_at'> {
  const channels = [...guild.channels.cache.values()]
    .flatMap((c) => {
      const kind = TEXT.has(c.type) ? 'text' : VOICE.has(c.type) ? 'voice' : null;
      if (!kind || !('rawPosition' in c)) return [];
      return [{ id: c.id, name: c.name, kind, position: c.rawPosition }] as const;
    })
    .sort((a, b) => a.position - b.position)
    .map(({ id, name, kind }) => ({ id, name, kind }));
  const roles = [...guild.roles.cache.values()]
    .filter((r) => r.id !== guild.id && !r.managed)
    .sort((a, b) => b.position - a.position)
    .map((r) => ({ id: r.id, name: r.name }));
  return { channels, roles };
}

/**
 * Keeps each server's directory (describeGuild) in the shared cache for the settings page:
 * written for every server of this replica's shards once it is ready and daily, again shortly
 * after a channel or role changes, and removed when the bot leaves the server.
 */
export class GuildDirectories {
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private refresh: NodeJS.Timeout | null = null;
  private readonly listeners: [Events, (...args: never[]) => void][] = [];

  constructor(
    private readonly client: Client,
    private readonly coord: Coordination,
    private readonly log: Logger,
  ) {}

  /** Listens for changes and writes every server's directory in the background. */
  start(): void {
    const soon = (guild: Guild | null | undefined): void => {
      if (guild) this.soon(guild);
    };
    const on = (event: Events, fn: (...args: never[]) => void): void => {
      this.client.on(event as never, fn as never);
      this.listeners.push([event, fn]);
    };
    on(Events.GuildCreate, (g: Guild) => soon(g));
    on(Events.GuildUpdate, (_: Guild, g: Guild) => soon(g));
    on(Events.GuildDelete, (g: Guild) => void this.remove(g.id));
    for (const e of [
      Events.ChannelCreate,
      Events.ChannelDelete,
      Events.GuildRoleCreate,
      Events.GuildRoleDelete,
    ]) {
      on(e, (x: { guild?: Guild | null }) => soon(x.guild));
    }
    for (const e of [Events.ChannelUpdate, Events.GuildRoleUpdate]) {
      on(e, (_: unknown, x: { guild?: Guild | null }) => soon(x.guild));
    }
    void this.writeAll();
    this.refresh = setInterval(() => void this.writeAll(), REFRESH_MS);
    this.refresh.unref();
  }

  stop(): void {
    for (const [event, fn] of this.listeners) this.client.off(event as never, fn as never);
    this.listeners.length = 0;
    if (this.refresh) clearInterval(this.refresh);
    for (const t of this.pending.values()) clearTimeout(t);
    this.pending.clear();
  }

  private soon(guild: Guild): void {
    if (this.pending.has(guild.id)) return;
    const t = setTimeout(() => {
      this.pending.delete(guild.id);
      void this.write(guild);
    }, SETTLE_MS);
    t.unref();
    this.pending.set(guild.id, t);
  }

  private async writeAll(): Promise<void> {
    for (const guild of this.client.guilds.cache.values()) await this.write(guild);
  }

  private async write(guild: Guild): Promise<void> {
    const directory: GuildDirectory = { ...describeGuild(guild), updated_at: new Date().toISOString() };
    await this.coord.cache
      .set(guildDirectoryKey(guild.id), directory, TTL_MS)
      .catch((err: unknown) => this.log.warn({ err, guildId: guild.id }, 'server directory not stored'));
  }

  private async remove(guildId: string): Promise<void> {
    await this.coord.cache
      .del(guildDirectoryKey(guildId))
      .catch((err: unknown) => this.log.warn({ err, guildId }, 'server directory not removed'));
  }
}
