import type { DiscordGatewayAdapterCreator } from '@discordjs/voice';
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { startVoiceServer, type VoiceServer } from './discord-voice/server.ts';
import { voiceTrustBundle } from './discord-voice/trust.ts';
import { IdentifyBuckets, SENDS_PER_MINUTE, sendWindow } from './discord-gateway-limits.ts';

/**
 * A local stand-in for Discord, enough to run the real discord.js client against it:
 *
 * - REST under /api/v10: GET /gateway/bot, PUT application (global and guild) commands,
 *   interaction callbacks, the original response's edit and followups (webhooks), channel
 *   messages, guild members. Bot token checked (`Authorization: Bot <token>`, else 401).
 * - The gateway (JSON, no compression: without zlib-sync discord.js asks for none): hello,
 *   identify with [shard, count] (each guild goes to shard (id >> 22) % count, as on Discord),
 *   ready, guild create with channels, members and voice states, heartbeat ack, the bot's voice
 *   state updates (op 4) answered with voice state and voice server updates, and dispatches of
 *   members moving between voice channels and of slash commands (interaction create). A
 *   session ends with its socket (resume is not kept) and takes the bot's voice states in
 *   its guilds with it, as on Discord; an identify whose shard would hold more than
 *   `maxGuildsPerShard` guilds is closed with 4011; GET /gateway/bot recommends `recommendedShards`.
 * - Voice as Discord does it: VOICE_SERVER_UPDATE points at a voice server of the peer
 *   (./discord-voice/server.ts: voice gateway v8 over TLS and UDP/RTP), which the bot's
 *   unmodified @discordjs/voice joins. Members speak through their own @discordjs/voice
 *   connections (`memberAdapter`, ./discord-voice/member.ts); the voice server relays them.
 */

interface PeerUser {
  id: string;
  username: string;
  /** Shown as the member's display name (guild nick). */
  nick?: string;
  bot?: boolean;
}

interface PeerChannel {
  id: string;
  name: string;
  /** 0 text, 2 voice. */
  type: 0 | 2;
}

export interface PeerGuild {
  id: string;
  name: string;
  ownerId: string;
  channels: PeerChannel[];
  members: PeerUser[];
  /** Roles besides @everyone. */
  roles?: { id: string; name: string; managed?: boolean }[];
  /**
   * What the bot's own managed role grants (what the invite asked for and the admin kept);
   * default BOT_INVITE_PERMISSIONS. The bot's permissions are this and @everyone's.
   */
  botPermissions?: bigint;
}

interface VoiceState {
  user_id: string;
  channel_id: string | null;
  session_id: string;
  mute: boolean;
  self_mute: boolean;
  self_deaf: boolean;
}

interface InteractionRecord {
  id: string;
  token: string;
  /** The callbacks received (type 4 reply, 5 deferred, 8 autocomplete result). */
  callbacks: { type: number; data?: Record<string, unknown> }[];
  /** Contents the original response was edited to. */
  edits: Record<string, unknown>[];
  followups: Record<string, unknown>[];
}

interface CommandReply {
  content: string;
  ephemeral: boolean;
  record: InteractionRecord;
}

export interface ChannelMessage {
  channelId: string;
  content: string;
  /** The buttons' custom ids, when the message has any. */
  buttons?: string[];
  /** Embeds the message carries, as posted. */
  embeds?: Record<string, unknown>[];
  /** Files uploaded with it (multipart `files[n]`), with the attachment's metadata. */
  attachments?: { id: string; filename: string; contentType: string; description?: string; data: Buffer }[];
}

/** Discord's upload limit for a server without boosts (10 MiB, the whole request). */
const UPLOAD_LIMIT_BYTES = 10 * 1024 * 1024;

/** One gateway connection that identified as a shard. */
interface ShardSocket {
  ws: WebSocket;
  shard: [number, number];
  seq: number;
  sessionId: string;
}

export interface DiscordPeer {
  readonly url: string;
  /** DISCORD_API_URL */
  readonly apiUrl: string;
  readonly token: string;
  readonly applicationId: string;
  readonly botUser: PeerUser;
  /** Commands registered: key 'global' or the guild id. */
  readonly commands: Map<string, { name: string; options?: unknown[] }[]>;
  readonly messages: ChannelMessage[];
  /**
   * Text channels where the bot lacks Attach Files (a channel overwrite denying it): a message
   * with files there is refused with 50013 Missing Permissions, as Discord does.
   */
  readonly noAttachFiles: Set<string>;
  /** Shard identifications received, in order. */
  readonly identifies: { shard: [number, number]; guilds: string[] }[];
  /** What GET /gateway/bot recommends (`shards`; Discord: one per 2,500 guilds). */
  recommendedShards: number;
  /**
   * The most guilds one shard may hold: an identify whose shard would hold more is closed with
   * 4011 (sharding required), as Discord does past 2,500. Default: no limit.
   */
  maxGuildsPerShard: number;
  /** Gateway closes sent to the bot, in order (4011, 4004, 4008...). */
  readonly gatewayCloses: number[];
  /**
   * GET /gateway/bot's `session_start_limit.max_concurrency`: identifies per 5 s, shards
   * bucketed by `shard_id % max_concurrency`; one past it gets op 9 (discord-gateway-limits.ts).
   */
  maxConcurrency: number;
  /** Shard ids whose identify was refused with op 9 (too soon in their bucket), in order. */
  readonly identifyRefused: number[];
  /** Gateway events a connection may send per 60 s; the next closes it with 4008. */
  sendsPerMinute: number;
  readonly interactions: InteractionRecord[];
  /** The voice server VOICE_SERVER_UPDATE currently points at (its faults are settable). */
  readonly voice: VoiceServer;
  env(): Record<string, string>;
  addGuild(g: PeerGuild): void;
  /** A channel made in a guild (CHANNEL_CREATE to the guild's shard). */
  addChannel(guildId: string, channel: PeerChannel): void;
  /** Moves a member into a voice channel (null: out of voice); dispatched to the guild's shard. */
  setVoice(guildId: string, userId: string, channelId: string | null, opts?: { mute?: boolean }): void;
  /**
   * A moderator drags a user (the bot too) into another voice channel (Move Members): their
   * voice connection in the old channel is closed with 4014, then the gateway says where they
   * are (VOICE_STATE_UPDATE, same session) and gives a voice server for it (VOICE_SERVER_UPDATE,
   * a new token), which the client connects to as on a join.
   */
  moveVoice(guildId: string, userId: string, channelId: string): void;
  /** The voice channel the bot is in, or null. */
  botChannel(guildId: string): string | null;
  /**
   * Runs a slash command as `userId` from `channelId` (`name` "settings show": a subcommand);
   * resolves with the reply they see.
   */
  command(
    guildId: string,
    channelId: string,
    userId: string,
    name: string,
    options?: Record<string, string>,
    permissions?: bigint,
  ): Promise<CommandReply>;
  /**
   * Presses a message button (custom id) as `userId`: a component interaction (type 3) from the
   * guild channel, or from the user's DM with the bot when `channelId` is that DM channel.
   */
  press(guildId: string, channelId: string, userId: string, customId: string): Promise<CommandReply>;
  /** The DM channel the bot opened with a user (POST /users/@me/channels), if any. */
  dmChannel(userId: string): string | null;
  /** Users whose DMs are closed to the bot: opening one answers 50007. */
  readonly closedDms: Set<string>;
  /** The bot's nickname in each guild, in the order it set them (PATCH /guilds/{id}/members/@me). */
  readonly nicks: { guildId: string; nick: string | null }[];
  /**
   * Presses a button (or picks `values` in a select menu) of the message an earlier reply
   * shows (its latest edit), as `userId`; resolves with what the message then reads.
   */
  component(on: CommandReply, userId: string, customId: string, values?: string[]): Promise<CommandReply>;
  /** Types `value` into /start's group option (or `of`'s); resolves with the choices offered. */
  autocomplete(
    guildId: string,
    channelId: string,
    userId: string,
    value: string,
    of?: { command: string; option: string },
  ): Promise<string[]>;
  /**
   * The gateway adapter of a member's own client (what discord.js gives @discordjs/voice): its
   * voice state updates (op 4) are answered with VOICE_STATE_UPDATE and VOICE_SERVER_UPDATE.
   */
  memberAdapter(guildId: string, userId: string): DiscordGatewayAdapterCreator;
  /**
   * Moves the guild's voice to a new voice server, as Discord does when a region fails: a
   * VOICE_SERVER_UPDATE with the new endpoint to everyone connected, then the old server closes
   * their sockets with 4014.
   */
  moveVoiceServer(guildId: string): Promise<VoiceServer>;
  /** Resolves once the bot has identified to a voice server for the guild n times (rejoins count). */
  untilVoiceConnections(guildId: string, n: number, timeoutMs?: number): Promise<void>;
  voiceConnections(guildId: string): number;
  /** Resolves once the shard holding `guildId` has sent it (READY + GUILD_CREATE). */
  untilGuildReady(guildId: string, timeoutMs?: number): Promise<void>;
  /** Drops every gateway socket (a Discord outage). */
  dropGateway(): void;
  close(): Promise<void>;
}

const snowflake = (() => {
  let n = 0n;
  return (): string => String(((BigInt(Date.now()) - 1420070400000n) << 22n) + n++);
})();

/** A guild id that Discord routes to `shard` of `count`. */
export function guildIdForShard(shard: number, count: number, salt = 0): string {
  for (let i = 0; ; i++) {
    const id = (BigInt(1_100_000_000_000 + salt * 1000 + i) << 22n) + 1n;
    if (Number((id >> 22n) % BigInt(count)) === shard) return String(id);
  }
}

export const ADMINISTRATOR = 1n << 3n;
export const MEMBER_PERMISSIONS = (1n << 10n) | (1n << 11n) | (1n << 31n) | (1n << 20n) | (1n << 21n);
/** Change Nickname (1 << 26), which a member needs to set its own nickname (discord-api-docs, Permissions). */
export const CHANGE_NICKNAME = 1n << 26n;
/**
 * The README's invite: View Channel, Send Messages, Embed Links, Attach Files, Connect, Change
 * Nickname (services/voice-bot/README.md, "Trying it against real Discord").
 */
export const BOT_INVITE_PERMISSIONS =
  (1n << 10n) | (1n << 11n) | (1n << 14n) | (1n << 15n) | (1n << 20n) | CHANGE_NICKNAME;

export async function startDiscordPeer(
  opts: { token?: string; applicationId?: string; voiceHeartbeatMs?: number } = {},
): Promise<DiscordPeer> {
  const token = opts.token ?? `peer.${randomBytes(12).toString('base64url')}`;
  const applicationId = opts.applicationId ?? '1300000000000000001';
  const botUser: PeerUser = { id: applicationId, username: 'Chronicler', bot: true };
  const guilds = new Map<string, PeerGuild>();
  const voice = new Map<string, Map<string, VoiceState>>();
  const shards = new Set<ShardSocket>();
  const voiceServers: VoiceServer[] = [];
  /** The adapters of members' own voice clients, by guild:user. */
  const memberAdapters = new Map<
    string,
    { onVoiceServerUpdate(d: unknown): void; onVoiceStateUpdate(d: unknown): void }
  >();
  const waiters = new Set<() => void>();
  const readyGuilds = new Set<string>();
  const pendingInteractions = new Map<string, (r: InteractionRecord) => void>();
  /** DM channels the bot opened: channel id → user id. */
  const dms = new Map<string, string>();
  /** Users whose DMs are closed to the bot (50007). */
  const closedDms = new Set<string>();
  /** Where each interaction came from, for a component pressed on its reply later. */
  const componentOrigins = new Map<string, { guildId: string; channelId: string }>();
  const notify = (): void => {
    for (const w of waiters) w();
  };
  const until = (check: () => boolean, timeoutMs: number, what: string): Promise<void> =>
    new Promise((resolve, reject) => {
      if (check()) return resolve();
      const w = (): void => {
        if (!check()) return;
        waiters.delete(w);
        clearTimeout(t);
        resolve();
      };
      const t = setTimeout(() => {
        waiters.delete(w);
        reject(new Error(`discord peer: waited ${timeoutMs} ms for ${what}`));
      }, timeoutMs);
      waiters.add(w);
    });

  const userObject = (u: PeerUser) => ({
    id: u.id,
    username: u.username,
    discriminator: '0',
    global_name: u.username,
    avatar: null,
    bot: u.bot ?? false,
  });
  /** The bot's managed role in a guild (Discord makes one per bot at the invite). */
  const botRoleId = (g: PeerGuild): string => String(BigInt(g.id) + 1n);
  const botPermissionsIn = (g: PeerGuild): bigint =>
    (g.botPermissions ?? BOT_INVITE_PERMISSIONS) | MEMBER_PERMISSIONS;
  const memberObject = (g: PeerGuild, u: PeerUser, permissions?: bigint) => {
    const vs = voice.get(g.id)?.get(u.id);
    return {
      user: userObject(u),
      nick: u.nick ?? null,
      roles: u.id === botUser.id ? [botRoleId(g)] : [],
      joined_at: '2024-01-01T00:00:00.000Z',
      deaf: false,
      mute: vs?.mute ?? false,
      flags: 0,
      ...(permissions !== undefined ? { permissions: String(permissions) } : {}),
    };
  };
  const shardOf = (guildId: string, count: number): number =>
    Number((BigInt(guildId) >> 22n) % BigInt(count));
  const socketFor = (guildId: string): ShardSocket | undefined =>
    [...shards].find((s) => shardOf(guildId, s.shard[1]) === s.shard[0]);
  const dispatch = (s: ShardSocket, t: string, d: unknown): void => {
    s.seq++;
    s.ws.send(JSON.stringify({ op: 0, t, s: s.seq, d }));
  };
  const findUser = (g: PeerGuild, userId: string): PeerUser =>
    userId === botUser.id ? botUser : g.members.find((m) => m.id === userId)!;
  const voiceStateObject = (g: PeerGuild, vs: VoiceState) => ({
    guild_id: g.id,
    channel_id: vs.channel_id,
    user_id: vs.user_id,
    member: memberObject(g, findUser(g, vs.user_id)),
    session_id: vs.session_id,
    deaf: false,
    mute: vs.mute,
    self_deaf: vs.self_deaf,
    self_mute: vs.self_mute,
    self_video: false,
    suppress: false,
    request_to_speak_timestamp: null,
  });
  const channelObject = (c: PeerChannel, position: number) => ({
    id: c.id,
    type: c.type,
    name: c.name,
    position,
    permission_overwrites: [],
    ...(c.type === 2 ? { bitrate: 64000, user_limit: 0, rtc_region: null } : {}),
  });
  const roleObject = (r: { id: string; name: string; managed?: boolean }, position: number) => ({
    id: r.id,
    name: r.name,
    permissions: '0',
    position,
    color: 0,
    hoist: false,
    managed: r.managed ?? false,
    mentionable: false,
    flags: 0,
  });
  const guildCreate = (g: PeerGuild) => ({
    id: g.id,
    name: g.name,
    icon: null,
    owner_id: g.ownerId,
    unavailable: false,
    large: false,
    member_count: g.members.length + 1,
    joined_at: '2024-01-01T00:00:00.000Z',
    features: [],
    emojis: [],
    stickers: [],
    roles: [
      {
        id: g.id,
        name: '@everyone',
        permissions: String(MEMBER_PERMISSIONS),
        position: 0,
        color: 0,
        hoist: false,
        managed: false,
        mentionable: false,
        flags: 0,
      },
      ...(g.roles ?? []).map((r, i) => roleObject(r, i + 1)),
      {
        ...roleObject(
          { id: botRoleId(g), name: botUser.username, managed: true },
          (g.roles ?? []).length + 1,
        ),
        permissions: String(g.botPermissions ?? BOT_INVITE_PERMISSIONS),
        tags: { bot_id: botUser.id },
      },
    ],
    channels: g.channels.map(channelObject),
    threads: [],
    members: [...g.members, botUser].map((u) => memberObject(g, u)),
    voice_states: [...(voice.get(g.id)?.values() ?? [])]
      .filter((v) => v.channel_id)
      .map((v) => {
        const { guild_id: _g, member: _m, ...rest } = voiceStateObject(g, v);
        return rest;
      }),
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
    premium_tier: 0,
    preferred_locale: 'en-US',
    system_channel_id: null,
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    mfa_level: 0,
    nsfw_level: 0,
  });

  const identifyBuckets = new IdentifyBuckets();
  const peer: DiscordPeer = {
    url: '',
    apiUrl: '',
    token,
    applicationId,
    botUser,
    commands: new Map(),
    messages: [],
    noAttachFiles: new Set(),
    identifies: [],
    recommendedShards: 1,
    maxGuildsPerShard: Infinity,
    gatewayCloses: [],
    maxConcurrency: 16,
    identifyRefused: identifyBuckets.refused,
    sendsPerMinute: SENDS_PER_MINUTE,
    interactions: [],
    nicks: [],
    closedDms,
    get voice() {
      return voiceServers.at(-1)!;
    },
    env() {
      return {
        DISCORD_BOT_TOKEN: token,
        DISCORD_APPLICATION_ID: applicationId,
        DISCORD_API_URL: peer.apiUrl,
        // Trusts the voice server's certificate (a bot process of its own reads it at start; the
        // test process has it from vitest.config.ts).
        NODE_EXTRA_CA_CERTS: voiceTrustBundle(),
      };
    },
    addGuild(g) {
      guilds.set(g.id, g);
      voice.set(g.id, new Map());
    },
    addChannel(guildId, channel) {
      const g = guilds.get(guildId)!;
      g.channels.push(channel);
      const s = socketFor(guildId);
      if (s)
        dispatch(s, 'CHANNEL_CREATE', {
          ...channelObject(channel, g.channels.length - 1),
          guild_id: guildId,
        });
    },
    setVoice(guildId, userId, channelId, o = {}) {
      const g = guilds.get(guildId)!;
      const states = voice.get(guildId)!;
      const vs: VoiceState = {
        user_id: userId,
        channel_id: channelId,
        session_id: states.get(userId)?.session_id ?? randomBytes(8).toString('hex'),
        mute: o.mute ?? false,
        self_mute: false,
        self_deaf: false,
      };
      states.set(userId, vs);
      const s = socketFor(guildId);
      if (s) dispatch(s, 'VOICE_STATE_UPDATE', voiceStateObject(g, vs));
      if (channelId === null) for (const v of voiceServers) v.forget(guildId, userId);
    },
    moveVoice(guildId, userId, channelId) {
      const g = guilds.get(guildId)!;
      const vs = voice.get(guildId)!.get(userId);
      if (!vs?.channel_id) throw new Error(`discord peer: ${userId} is in no voice channel to move`);
      for (const v of voiceServers) v.forget(guildId, userId);
      vs.channel_id = channelId;
      const update = voiceServerUpdate(guildId, channelId, vs, { self_deaf: vs.self_deaf });
      const s = socketFor(guildId);
      if (s) dispatch(s, 'VOICE_STATE_UPDATE', voiceStateObject(g, vs));
      if (userId === botUser.id) {
        if (s) dispatch(s, 'VOICE_SERVER_UPDATE', update);
      } else {
        const methods = memberAdapters.get(`${guildId}:${userId}`);
        methods?.onVoiceStateUpdate(voiceStateObject(g, vs) as never);
        methods?.onVoiceServerUpdate(update as never);
      }
      notify();
    },
    botChannel(guildId) {
      return voice.get(guildId)?.get(botUser.id)?.channel_id ?? null;
    },
    async press(guildId, channelId, userId, customId) {
      return peer.command(guildId, channelId, userId, `button:${customId}`);
    },
    dmChannel(userId) {
      return [...dms.entries()].find(([, u]) => u === userId)?.[0] ?? null;
    },
    async command(guildId, channelId, userId, name, options = {}, permissions = MEMBER_PERMISSIONS) {
      const button = name.startsWith('button:') ? name.slice('button:'.length) : null;
      const record = interact(guildId, channelId, userId, button ? 3 : 2, name, options, null, permissions);
      const done = await new Promise<InteractionRecord>((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`discord peer: no reply to /${name} within 30 s`)),
          30_000,
        );
        pendingInteractions.set(record.id, (r) => {
          clearTimeout(t);
          resolve(r);
        });
        check(record);
      });
      return replyOf(done);
    },
    async component(on, userId, customId, values) {
      const record = interactComponent(on, userId, customId, values);
      const done = await new Promise<InteractionRecord>((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`discord peer: no answer to ${customId} within 30 s`)),
          30_000,
        );
        pendingInteractions.set(record.id, (r) => {
          clearTimeout(t);
          resolve(r);
        });
        check(record);
      });
      return replyOf(done);
    },
    async autocomplete(guildId, channelId, userId, value, of = { command: 'start', option: 'group' }) {
      const record = interact(
        guildId,
        channelId,
        userId,
        4,
        of.command,
        { [of.option]: value },
        of.option,
        MEMBER_PERMISSIONS,
      );
      const done = await new Promise<InteractionRecord>((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error('discord peer: no autocomplete answer within 10 s')),
          10_000,
        );
        pendingInteractions.set(record.id, (r) => {
          clearTimeout(t);
          resolve(r);
        });
        check(record);
      });
      const choices = (done.callbacks[0]?.data?.choices ?? []) as { name: string }[];
      return choices.map((c) => c.name);
    },
    memberAdapter(guildId, userId) {
      return (methods) => {
        memberAdapters.set(`${guildId}:${userId}`, methods);
        return {
          sendPayload(payload: { op: number; d: Record<string, unknown> }) {
            if (payload.op !== 4) return false;
            const d = payload.d;
            const channelId = (d.channel_id as string | null) ?? null;
            peer.setVoice(guildId, userId, channelId);
            const vs = voice.get(guildId)!.get(userId)!;
            vs.self_mute = Boolean(d.self_mute);
            const g = guilds.get(guildId)!;
            queueMicrotask(() => {
              methods.onVoiceStateUpdate(voiceStateObject(g, vs) as never);
              if (channelId)
                methods.onVoiceServerUpdate(voiceServerUpdate(guildId, channelId, vs, d) as never);
            });
            return true;
          },
          destroy() {
            memberAdapters.delete(`${guildId}:${userId}`);
          },
        };
      };
    },
    async moveVoiceServer(guildId) {
      const old = peer.voice;
      const next = await startVoiceServer({ onEvent: notify, heartbeatMs: opts.voiceHeartbeatMs });
      voiceServers.push(next);
      for (const [userId, vs] of voice.get(guildId) ?? []) {
        if (!vs.channel_id) continue;
        const update = voiceServerUpdate(guildId, vs.channel_id, vs, { self_deaf: vs.self_deaf });
        if (userId === botUser.id) {
          const s = socketFor(guildId);
          if (s) dispatch(s, 'VOICE_SERVER_UPDATE', update);
        } else {
          memberAdapters.get(`${guildId}:${userId}`)?.onVoiceServerUpdate(update);
        }
      }
      for (const userId of old.connected(guildId)) old.forget(guildId, userId);
      return next;
    },
    untilVoiceConnections(guildId, n, timeoutMs = 20_000) {
      return until(
        () => peer.voiceConnections(guildId) >= n,
        timeoutMs,
        `${n} voice connections to guild ${guildId}`,
      );
    },
    voiceConnections(guildId) {
      return voiceServers
        .flatMap((v) => v.events)
        .filter((e) => e.kind === 'identify' && e.guildId === guildId && e.userId === botUser.id).length;
    },
    untilGuildReady(guildId, timeoutMs = 20_000) {
      return until(() => readyGuilds.has(guildId), timeoutMs, `guild ${guildId} sent to its shard`);
    },
    dropGateway() {
      for (const s of shards) s.ws.terminate();
    },
    async close() {
      await Promise.all(voiceServers.map((v) => v.stop()));
      for (const s of shards) s.ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  function interact(
    guildId: string,
    channelId: string,
    userId: string,
    type: 2 | 3 | 4,
    name: string,
    options: Record<string, string>,
    focused: string | null,
    permissions: bigint,
  ): InteractionRecord {
    const g = guilds.get(guildId)!;
    const s = socketFor(guildId);
    if (!s) throw new Error(`discord peer: no shard connected for guild ${guildId}`);
    const record: InteractionRecord = {
      id: snowflake(),
      token: randomBytes(16).toString('base64url'),
      callbacks: [],
      edits: [],
      followups: [],
    };
    peer.interactions.push(record);
    componentOrigins.set(record.id, { guildId, channelId });
    if (type === 3) {
      dispatch(s, 'INTERACTION_CREATE', componentInteraction(g, channelId, userId, record, name.slice(7)));
      return record;
    }
    const channel = g.channels.find((c) => c.id === channelId)!;
    dispatch(s, 'INTERACTION_CREATE', {
      id: record.id,
      application_id: applicationId,
      type,
      token: record.token,
      version: 1,
      guild_id: guildId,
      guild: { id: guildId, features: [], locale: 'en-US' },
      channel_id: channelId,
      channel: {
        id: channelId,
        type: channel.type,
        name: channel.name,
        guild_id: guildId,
        permissions: String(permissions),
      },
      member: memberObject(g, findUser(g, userId), permissions),
      app_permissions: String(MEMBER_PERMISSIONS),
      locale: 'en-US',
      guild_locale: 'en-US',
      entitlements: [],
      authorizing_integration_owners: { '0': guildId },
      context: 0,
      data: commandData(name, options, focused),
    });
    return record;
  }

  /**
   * A button press (type 3) on a message the bot sent, from the guild channel or from the
   * user's DM channel (then with `user` and no guild, as Discord sends it).
   */
  function componentInteraction(
    g: PeerGuild,
    channelId: string,
    userId: string,
    record: InteractionRecord,
    customId: string,
  ) {
    const inDm = dms.has(channelId);
    const user = findUser(g, userId);
    return {
      id: record.id,
      application_id: applicationId,
      type: 3,
      token: record.token,
      version: 1,
      channel_id: channelId,
      channel: inDm
        ? { id: channelId, type: 1, recipients: [userObject(user)] }
        : { id: channelId, type: 0, name: 'channel', guild_id: g.id },
      ...(inDm
        ? { user: userObject(user), context: 1 }
        : {
            guild_id: g.id,
            guild: { id: g.id, features: [], locale: 'en-US' },
            member: memberObject(g, user, MEMBER_PERMISSIONS),
            context: 0,
          }),
      app_permissions: String(MEMBER_PERMISSIONS),
      locale: 'en-US',
      entitlements: [],
      authorizing_integration_owners: { '0': g.id },
      message: { ...messageObject(channelId, { content: '' }), components: [] },
      data: { custom_id: customId, component_type: 2 },
    };
  }

  /** A command's data: `name` "settings consent" runs the subcommand `consent` of /settings. */
  function commandData(name: string, options: Record<string, string>, focused: string | null) {
    const [command, sub] = name.split(' ');
    const values = Object.entries(options).map(([k, v]) => ({
      name: k,
      type: 3,
      value: v,
      ...(focused === k ? { focused: true } : {}),
    }));
    return {
      id: `cmd-${command}`,
      name: command,
      type: 1,
      options: sub ? [{ name: sub, type: 1, options: values }] : values,
    };
  }

  /** What an interaction's reply reads: its reply or update (4, 7), else its latest edit. */
  function replyOf(done: InteractionRecord): CommandReply {
    const first = done.callbacks[0]!;
    const flags = Number(first.data?.flags ?? 0);
    const content =
      first.type === 4 || first.type === 7
        ? String(first.data?.content ?? '')
        : String(done.edits.at(-1)?.content ?? '');
    return { content, ephemeral: (flags & 64) !== 0, record: done };
  }

  /** A component interaction (type 3) on the message a reply shows, from the guild and channel of its command. */
  function interactComponent(
    on: CommandReply,
    userId: string,
    customId: string,
    values: string[] | undefined,
  ): InteractionRecord {
    const origin = componentOrigins.get(on.record.id);
    if (!origin) throw new Error('discord peer: that reply is not from a command the peer sent');
    const g = guilds.get(origin.guildId)!;
    const s = socketFor(origin.guildId);
    if (!s) throw new Error(`discord peer: no shard connected for guild ${origin.guildId}`);
    const shown = [...on.record.callbacks.map((c) => c.data ?? {}), ...on.record.edits].filter(
      (d) => d.content !== undefined || d.components !== undefined,
    );
    const latest = Object.assign({}, ...shown) as Record<string, unknown>;
    const record: InteractionRecord = {
      id: snowflake(),
      token: randomBytes(16).toString('base64url'),
      callbacks: [],
      edits: [],
      followups: [],
    };
    peer.interactions.push(record);
    componentOrigins.set(record.id, origin);
    const channel = g.channels.find((c) => c.id === origin.channelId)!;
    dispatch(s, 'INTERACTION_CREATE', {
      id: record.id,
      application_id: applicationId,
      type: 3,
      token: record.token,
      version: 1,
      guild_id: origin.guildId,
      guild: { id: origin.guildId, features: [], locale: 'en-US' },
      channel_id: origin.channelId,
      channel: { id: origin.channelId, type: channel.type, name: channel.name, guild_id: origin.guildId },
      member: memberObject(g, findUser(g, userId), MEMBER_PERMISSIONS),
      app_permissions: String(MEMBER_PERMISSIONS),
      locale: 'en-US',
      guild_locale: 'en-US',
      entitlements: [],
      authorizing_integration_owners: { '0': origin.guildId },
      context: 0,
      message: {
        ...messageObject(origin.channelId, { content: latest.content, flags: 64 }),
        components: latest.components ?? [],
      },
      data: values
        ? { custom_id: customId, component_type: 3, values }
        : { custom_id: customId, component_type: 2 },
    });
    return record;
  }

  /** Settles a command once its reply is visible: a reply, or a deferral and its first edit. */
  function check(record: InteractionRecord): void {
    const resolve = pendingInteractions.get(record.id);
    if (!resolve) return;
    const first = record.callbacks[0];
    if (!first) return;
    if ((first.type === 5 || first.type === 6) && record.edits.length === 0) return;
    pendingInteractions.delete(record.id);
    resolve(record);
  }

  const messageObject = (channelId: string, body: Record<string, unknown>) => ({
    id: snowflake(),
    channel_id: channelId,
    author: userObject(botUser),
    content: String(body.content ?? ''),
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    pinned: false,
    type: 0,
    flags: Number(body.flags ?? 0),
    components: [],
  });

  const buttonIds = (body: Record<string, unknown>): string[] =>
    ((body.components ?? []) as { components?: { custom_id?: string }[] }[]).flatMap((row) =>
      (row.components ?? []).flatMap((c) => (c.custom_id ? [c.custom_id] : [])),
    );

  /** Files of a multipart request (`files[n]`), by n. */
  interface Upload {
    index: string;
    name: string;
    contentType: string;
    data: Buffer;
  }
  /**
   * A request's JSON: the body, or a multipart form's `payload_json` with its `files[n]` (how
   * Discord takes uploads: https://discord.com/developers/docs/reference#uploading-files).
   */
  const readBody = async (
    req: IncomingMessage,
  ): Promise<{ body: Record<string, unknown>; uploads: Upload[]; bytes: number }> => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks);
    if (raw.length === 0) return { body: {}, uploads: [], bytes: 0 };
    const type = req.headers['content-type'] ?? '';
    if (!type.startsWith('multipart/form-data')) {
      return { body: JSON.parse(raw.toString()) as Record<string, unknown>, uploads: [], bytes: raw.length };
    }
    // Node's own multipart parser (undici's), as strict as a server's about the form.
    const form = await new Response(raw, { headers: { 'content-type': type } }).formData();
    const payload = form.get('payload_json');
    const uploads: Upload[] = [];
    for (const [key, value] of form.entries()) {
      const index = /^files\[(\d+)\]$/.exec(key)?.[1];
      if (index === undefined || typeof value === 'string') continue;
      uploads.push({
        index,
        name: value.name,
        contentType: value.type,
        data: Buffer.from(await value.arrayBuffer()),
      });
    }
    const body = typeof payload === 'string' ? (JSON.parse(payload) as Record<string, unknown>) : {};
    return { body, uploads, bytes: raw.length };
  };
  const json = (res: ServerResponse, status: number, body?: unknown): void => {
    if (body === undefined) {
      res.writeHead(status).end();
      return;
    }
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      json(res, 500, { message: String(err), code: 0 });
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://peer');
    const p = url.pathname;
    const api = /^\/api\/v10(\/.*)$/.exec(p)?.[1];
    if (!api) return json(res, 404, { message: '404: Not Found', code: 0 });
    // Interaction callbacks and webhooks authenticate by their token, not the bot's.
    const isWebhook = api.startsWith('/interactions/') || api.startsWith('/webhooks/');
    if (!isWebhook && req.headers.authorization !== `Bot ${token}`) {
      return json(res, 401, { message: '401: Unauthorized', code: 0 });
    }
    const { body, uploads, bytes } =
      req.method === 'GET' ? { body: {}, uploads: [], bytes: 0 } : await readBody(req);
    let m: RegExpExecArray | null;
    if (req.method === 'GET' && api === '/gateway/bot') {
      return json(res, 200, {
        url: peer.url.replace(/^http/, 'ws') + '/gateway',
        shards: peer.recommendedShards,
        session_start_limit: {
          total: 1000,
          remaining: 1000,
          reset_after: 0,
          max_concurrency: peer.maxConcurrency,
        },
      });
    }
    if (req.method === 'PUT' && (m = /^\/applications\/(\d+)(?:\/guilds\/(\d+))?\/commands$/.exec(api))) {
      const list = body as unknown as { name: string }[];
      peer.commands.set(m[2] ?? 'global', list);
      return json(
        res,
        200,
        list.map((c) => ({ ...c, id: `cmd-${c.name}`, application_id: m![1], version: '1', type: 1 })),
      );
    }
    if (req.method === 'POST' && (m = /^\/interactions\/(\d+)\/([^/]+)\/callback$/.exec(api))) {
      const record = peer.interactions.find((r) => r.id === m![1] && r.token === m![2]);
      if (!record) return json(res, 404, { message: 'Unknown interaction', code: 10062 });
      if (record.callbacks.length > 0) {
        return json(res, 400, { message: 'Interaction has already been acknowledged.', code: 40060 });
      }
      record.callbacks.push(body as InteractionRecord['callbacks'][number]);
      check(record);
      return json(res, 204);
    }
    if ((m = /^\/webhooks\/(\d+)\/([^/]+)(?:\/messages\/(?:@|%40)original)?$/.exec(api))) {
      const record = peer.interactions.find((r) => r.token === m![2]);
      if (!record) return json(res, 404, { message: 'Unknown Webhook', code: 10015 });
      if (req.method === 'PATCH') record.edits.push(body);
      else if (req.method === 'POST') record.followups.push(body);
      check(record);
      return json(res, 200, messageObject('0', body));
    }
    if (req.method === 'POST' && (m = /^\/channels\/(\d+)\/messages$/.exec(api))) {
      const buttons = buttonIds(body);
      const attachments: NonNullable<ChannelMessage['attachments']> = [];
      if (uploads.length > 0) {
        // The whole request counts against the limit (discord-api-docs#6058: 413, code 40005).
        if (bytes > UPLOAD_LIMIT_BYTES) {
          return json(res, 413, { message: 'Request entity too large', code: 40005 });
        }
        if (peer.noAttachFiles.has(m[1]!))
          return json(res, 403, { message: 'Missing Permissions', code: 50013 });
        // `attachments` describes each file by the n of its `files[n]` (optional: the file's own name).
        const described = (body.attachments ?? []) as {
          id?: unknown;
          filename?: unknown;
          description?: unknown;
        }[];
        for (const u of uploads) {
          const meta = described.find((a) => String(a.id) === u.index) ?? {};
          attachments.push({
            id: u.index,
            filename: typeof meta.filename === 'string' ? meta.filename : u.name,
            contentType: u.contentType,
            ...(typeof meta.description === 'string' ? { description: meta.description } : {}),
            data: u.data,
          });
        }
      }
      peer.messages.push({
        channelId: m[1]!,
        content: String(body.content ?? ''),
        ...(buttons.length ? { buttons } : {}),
        ...(Array.isArray(body.embeds) ? { embeds: body.embeds as Record<string, unknown>[] } : {}),
        ...(attachments.length ? { attachments } : {}),
      });
      notify();
      return json(res, 200, messageObject(m[1]!, body));
    }
    if (req.method === 'GET' && (m = /^\/guilds\/(\d+)\/members\/(\d+)$/.exec(api))) {
      const g = guilds.get(m[1]!);
      const u = g?.members.find((x) => x.id === m![2]);
      if (!g || !u) return json(res, 404, { message: 'Unknown Member', code: 10007 });
      return json(res, 200, memberObject(g, u));
    }
    if (req.method === 'GET' && api === '/users/@me') return json(res, 200, userObject(botUser));
    if (req.method === 'POST' && api === '/users/@me/channels') {
      const userId = String(body.recipient_id ?? '');
      const known = [...guilds.values()].flatMap((g) => g.members).find((u) => u.id === userId);
      if (!known) return json(res, 400, { message: 'Invalid Recipient(s)', code: 50033 });
      if (closedDms.has(userId))
        return json(res, 403, { message: 'Cannot send messages to this user', code: 50007 });
      const id = peer.dmChannel(userId) ?? snowflake();
      dms.set(id, userId);
      return json(res, 200, { id, type: 1, last_message_id: null, recipients: [userObject(known)] });
    }
    if (req.method === 'PATCH' && (m = /^\/guilds\/(\d+)\/members\/(?:@|%40)me$/.exec(api))) {
      if (!guilds.has(m[1]!)) return json(res, 404, { message: 'Unknown Guild', code: 10004 });
      // Setting one's own nickname needs Change Nickname (discord-api-docs, Permissions).
      if (!(botPermissionsIn(guilds.get(m[1]!)!) & CHANGE_NICKNAME))
        return json(res, 403, { message: 'Missing Permissions', code: 50013 });
      const nick = typeof body.nick === 'string' && body.nick ? body.nick : null;
      peer.nicks.push({ guildId: m[1]!, nick });
      notify();
      return json(res, 200, { ...memberObject(guilds.get(m[1]!)!, botUser), nick });
    }
    return json(res, 404, { message: `peer does not serve ${req.method} ${api}`, code: 0 });
  }

  /**
   * VOICE_SERVER_UPDATE for a user joining `channelId`: a fresh token, and the voice server told
   * whom to expect (what Discord's gateway and voice servers settle between themselves).
   */
  function voiceServerUpdate(
    guildId: string,
    channelId: string,
    vs: VoiceState,
    d: Record<string, unknown>,
  ): { token: string; guild_id: string; endpoint: string } {
    const voiceToken = randomBytes(8).toString('hex');
    vs.self_deaf = Boolean(d.self_deaf);
    peer.voice.expect({
      guildId,
      channelId,
      userId: vs.user_id,
      sessionId: vs.session_id,
      token: voiceToken,
      selfDeaf: vs.self_deaf,
    });
    return { token: voiceToken, guild_id: guildId, endpoint: peer.voice.endpoint };
  }

  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    if (!(req.url ?? '').startsWith('/gateway')) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => onGateway(ws));
  });

  function onGateway(ws: WebSocket): void {
    let shard: ShardSocket | null = null;
    const sends = sendWindow(() => peer.sendsPerMinute);
    ws.send(JSON.stringify({ op: 10, d: { heartbeat_interval: 41_250 } }));
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw)) as { op: number; d: Record<string, unknown> | null };
      if (!sends.count()) {
        peer.gatewayCloses.push(4008);
        notify();
        ws.close(4008, 'Rate limited.');
        return;
      }
      if (msg.op === 1) {
        ws.send(JSON.stringify({ op: 11 }));
      } else if (msg.op === 2) {
        const d = msg.d!;
        if (d.token !== token) {
          ws.close(4004, 'Authentication failed.');
          return;
        }
        const [id, count] = (d.shard as [number, number] | undefined) ?? [0, 1];
        if (!identifyBuckets.allow(id, peer.maxConcurrency)) {
          // "Invalid Session": the client waits 1 to 5 s and identifies again.
          notify();
          ws.send(JSON.stringify({ op: 9, d: false }));
          return;
        }
        if ([...guilds.values()].filter((g) => shardOf(g.id, count) === id).length > peer.maxGuildsPerShard) {
          peer.gatewayCloses.push(4011);
          notify();
          ws.close(4011, 'Sharding required.');
          return;
        }
        shard = { ws, shard: [id, count], seq: 0, sessionId: randomBytes(8).toString('hex') };
        shards.add(shard);
        const mine = [...guilds.values()].filter((g) => shardOf(g.id, count) === id);
        peer.identifies.push({ shard: [id, count], guilds: mine.map((g) => g.id) });
        dispatch(shard, 'READY', {
          v: 10,
          user: { ...userObject(botUser), verified: true, mfa_enabled: false, flags: 0 },
          guilds: mine.map((g) => ({ id: g.id, unavailable: true })),
          session_id: shard.sessionId,
          resume_gateway_url: peer.url.replace(/^http/, 'ws') + '/gateway',
          shard: [id, count],
          application: { id: applicationId, flags: 0 },
          private_channels: [],
          relationships: [],
          user_settings: {},
          guild_join_requests: [],
          presences: [],
        });
        for (const g of mine) {
          dispatch(shard, 'GUILD_CREATE', guildCreate(g));
          readyGuilds.add(g.id);
        }
        notify();
      } else if (msg.op === 6) {
        // Resume is not kept: ask for a fresh identify.
        ws.send(JSON.stringify({ op: 9, d: false }));
      } else if (msg.op === 4 && shard) {
        const d = msg.d!;
        const guildId = String(d.guild_id);
        const g = guilds.get(guildId);
        if (!g) return;
        const channelId = (d.channel_id as string | null) ?? null;
        const states = voice.get(guildId)!;
        const vs: VoiceState = {
          user_id: botUser.id,
          channel_id: channelId,
          session_id: randomBytes(8).toString('hex'),
          mute: false,
          self_mute: Boolean(d.self_mute),
          self_deaf: Boolean(d.self_deaf),
        };
        states.set(botUser.id, vs);
        dispatch(shard, 'VOICE_STATE_UPDATE', voiceStateObject(g, vs));
        if (channelId) {
          dispatch(shard, 'VOICE_SERVER_UPDATE', voiceServerUpdate(guildId, channelId, vs, d));
        } else {
          for (const v of voiceServers) v.forget(guildId, botUser.id);
        }
        notify();
      }
    });
    ws.on('close', () => {
      if (!shard) return;
      shards.delete(shard);
      // Resume is not kept (op 6 is answered with an invalid session), so the session ends with
      // its socket, and with it, as on Discord, the bot's voice state in the guilds of that shard:
      // its voice connections are dropped and it is out of the channel until it joins again.
      const [id, count] = shard.shard;
      for (const [guildId, states] of voice) {
        const vs = states.get(botUser.id);
        // A newer session holding the guild (a process that took the shard over) keeps its own.
        if (!vs?.channel_id || shardOf(guildId, count) !== id || socketFor(guildId)) continue;
        states.delete(botUser.id);
        for (const v of voiceServers) v.forget(guildId, botUser.id);
      }
      notify();
    });
  }

  voiceServers.push(await startVoiceServer({ onEvent: notify, heartbeatMs: opts.voiceHeartbeatMs }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  (peer as { url: string }).url = `http://127.0.0.1:${port}`;
  (peer as { apiUrl: string }).apiUrl = `http://127.0.0.1:${port}/api`;
  return peer;
}
