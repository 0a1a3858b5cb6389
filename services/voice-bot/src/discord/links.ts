import { voiceWatchdogRejoins } from '@chronicler/kit';
import type { Guild } from 'discord.js';
import { setTimeout as delay } from 'node:timers/promises';
import type { BotCore, GuildVoice } from './core.ts';
import type { Recording, WatchdogHit } from './recording.ts';
import { DoNotReconnectError, type VoiceLink } from './voice.ts';

/**
 * The bot's voice connection in a guild: joined on demand, kept across recordings, repaired
 * when it drops or when the watchdog finds a speaker whose audio no longer decodes.
 */
export async function ensureLink(core: BotCore, guild: Guild, channelId: string): Promise<VoiceLink> {
  const g = core.guildVoice(guild.id);
  if (g.link?.channelId === channelId) return g.link;
  if (g.connecting) {
    const link = await g.connecting;
    if (link.channelId === channelId) return link;
  }
  if (g.link) await g.link.close({ stay: true });
  g.link = null;
  g.connecting = core.o.receiver.connect(guild, channelId, {
    // While a recording is handed over to this process, what is heard is held for it.
    speakingStart: (u) => (g.held ?? g.recording?.handlers)?.speakingStart(u),
    speakingStop: (u) => (g.held ?? g.recording?.handlers)?.speakingStop(u),
    opus: (u, p) => (g.held ?? g.recording?.handlers)?.opus(u, p),
    // The link's channel, which a moderator's move changes (movedByOthers).
    lost: (reason, o) =>
      void linkLost(core, guild, g.link?.channelId ?? channelId, reason, o?.final ?? false),
  });
  try {
    g.link = await g.connecting;
    core.log.info({ guildId: guild.id, channelId }, 'joined voice channel');
    return g.link;
  } finally {
    g.connecting = null;
  }
}

/** Rejoins the bot makes on its own (a lost link, the watchdog) counted over this window. */
const REJOIN_WINDOW_MS = 10 * 60_000;
/** More rejoins than this in the window end the recording instead of a join loop. */
const REJOIN_CAP = 5;
const rejoinTimes = new WeakMap<GuildVoice, number[]>();

/**
 * Whether the bot may rejoin once more, and after how long: the first at once, each further
 * one in the window after twice the wait of the one before (1 s, 2 s, 4 s, ...), none past the
 * cap. Discord rate-limits voice joins (close 4021, "Do not reconnect"), and a channel whose
 * every join fails the same way is not mended by joining faster.
 */
function rejoinAllowed(g: GuildVoice): { waitMs: number } | null {
  const now = Date.now();
  const recent = (rejoinTimes.get(g) ?? []).filter((t) => now - t < REJOIN_WINDOW_MS);
  rejoinTimes.set(g, recent);
  if (recent.length >= REJOIN_CAP) return null;
  recent.push(now);
  return { waitMs: recent.length <= 1 ? 0 : Math.min(30_000, 1000 * 2 ** (recent.length - 2)) };
}

/** The rejoins ran out: the recording ends, saved, and the channel is told why. */
async function giveUpRejoining(
  core: BotCore,
  g: GuildVoice,
  channelId: string,
  reason: string,
): Promise<void> {
  const rec = g.recording;
  core.log.error({ channelId, reason }, 'voice: too many rejoins; ending the recording');
  if (!rec) return;
  g.recording = null;
  await rec.end(`The bot gave up rejoining the voice channel (${reason})`);
  await core.post(
    rec.state.text_channel_id,
    `⏹️ **Recording stopped**: I had to rejoin <#${channelId}> ${REJOIN_CAP} times in ${REJOIN_WINDOW_MS / 60_000} minutes (last: ${reason}), so I stopped instead of joining again and again. What was said so far is saved: ${core.sessionUrl(rec.state.transcript_id)}`,
  );
}

/** Discord said not to reconnect: the recording ends, saved, and the channel is told why. */
async function endAsAsked(core: BotCore, g: GuildVoice, reason: string): Promise<void> {
  const rec = g.recording;
  if (!rec) return;
  g.recording = null;
  await rec.end(`Discord closed the voice connection (${reason})`);
  await core.post(
    rec.state.text_channel_id,
    `⏹️ **Recording stopped**: Discord closed my voice connection and asked me not to reconnect (${reason}). What was said so far is saved: ${core.sessionUrl(rec.state.transcript_id)}`,
  );
}

/** The voice link dropped: join again and record on, or end the recording and say so. */
async function linkLost(
  core: BotCore,
  guild: Guild,
  channelId: string,
  reason: string,
  final = false,
): Promise<void> {
  const g = core.guildVoice(guild.id);
  if (core.stopping || g.link?.channelId !== channelId) return;
  g.link = null;
  const rec = g.recording;
  core.log.warn({ guildId: guild.id, channelId, reason, final, recording: Boolean(rec) }, 'voice link lost');
  if (!rec) return;
  if (final) return endAsAsked(core, g, reason);
  rec.linkDropped();
  const allowed = rejoinAllowed(g);
  if (!allowed) return giveUpRejoining(core, g, channelId, reason);
  if (allowed.waitMs > 0) {
    await delay(allowed.waitMs);
    if (core.stopping || g.recording !== rec || g.link) return;
  }
  try {
    await ensureLink(core, guild, channelId);
    core.log.info({ guildId: guild.id }, 'voice link restored; the recording goes on');
  } catch (err) {
    if (err instanceof DoNotReconnectError) return endAsAsked(core, g, err.reason);
    core.log.error(
      { err, guildId: guild.id },
      'could not get back into the voice channel; ending the recording',
    );
    g.recording = null;
    await rec.end(`The bot lost the voice channel (${reason})`);
    await core.post(
      rec.state.text_channel_id,
      `Recording stopped: I lost the voice channel. What was said so far is saved: ${core.sessionUrl(rec.state.transcript_id)}`,
    );
  }
}

/**
 * The bot's own voice state left the channel it holds a link to, and the bot did not ask (it
 * drops `g.link` before each leave of its own: /leave, /stop's auto-record end, shutdown): a
 * moderator pressed Disconnect, or the channel was deleted. Discord then closes the voice
 * connection with 4014, "Disconnected: either the channel was deleted, you were kicked, or the
 * main gateway session was dropped. Should not reconnect." (discord-api-docs, Opcodes and
 * Status Codes, Voice Close Event Codes). So the recording ends here, everything so far saved,
 * with a notice where it was announced; it is never rejoined. A later /start records again.
 */
export async function disconnectedByOthers(core: BotCore, guild: Guild, channelId: string): Promise<void> {
  const g = core.guildVoice(guild.id);
  if (core.stopping || g.link?.channelId !== channelId) return;
  const link = g.link;
  g.link = null;
  const rec = g.recording?.state.channel_id === channelId ? g.recording : null;
  core.log.warn(
    { guildId: guild.id, channelId, recording: Boolean(rec) },
    'disconnected from the voice channel by someone else; not rejoining',
  );
  await link.close().catch(() => {});
  if (!rec) return;
  g.recording = null;
  await rec.end();
  await core.post(
    rec.state.text_channel_id,
    `⏹️ **Recording stopped**: I was disconnected from <#${channelId}>. What was said so far is saved: ${core.sessionUrl(rec.state.transcript_id)}`,
  );
}

/**
 * The bot's own voice state moved to another channel, and the bot did not ask: a moderator
 * dragged it (Move Members). Discord sends the new voice state and a new voice server, and
 * closes the old voice connection (4014); @discordjs/voice takes the channel from the state
 * (VoiceConnection.addStatePacket) and connects again from the server update, the case the
 * discord.js guide's "Handling disconnects" waits 5 s for ("Seems to be reconnecting to a new
 * channel"). The moderator meant the table to be there now: the recording follows it, says so
 * where it was announced, and answers the recording it follows (the caller then applies the
 * consent rules to the members already there). Null when there is nothing to follow.
 */
export async function movedByOthers(
  core: BotCore,
  guild: Guild,
  from: string,
  to: string,
): Promise<Recording | null> {
  const g = core.guildVoice(guild.id);
  const rec = g.recording;
  if (core.stopping || !rec || rec.state.channel_id !== from || g.connecting) return null;
  core.log.warn({ guildId: guild.id, from, to }, 'moved to another voice channel by someone else; following');
  await rec.movedTo(to);
  await core.post(
    rec.state.text_channel_id,
    `🔀 I was moved from <#${from}> to <#${to}>: the recording goes on there, under the same rules. ${core.sessionUrl(rec.state.transcript_id)}`,
  );
  return rec;
}

/** Someone speaks and nothing decodes (a missed DAVE transition, a stale key): rejoin. */
export async function watchdogRejoin(core: BotCore, guild: Guild, hit: WatchdogHit): Promise<void> {
  const g = core.guildVoice(guild.id);
  const channelId = g.link?.channelId ?? g.recording?.state.channel_id;
  voiceWatchdogRejoins.inc();
  core.log.warn(
    { guildId: guild.id, channelId, ...hit },
    'voice watchdog: a member is speaking but nothing decodes; rejoining',
  );
  if (!channelId) return;
  const allowed = rejoinAllowed(g);
  if (!allowed) {
    const old = g.link;
    g.link = null;
    await old?.close().catch(() => {});
    return giveUpRejoining(core, g, channelId, 'speech that does not decode');
  }
  const old = g.link;
  g.link = null;
  await old?.close({ stay: true }).catch(() => {});
  if (allowed.waitMs > 0) await delay(allowed.waitMs);
  try {
    await ensureLink(core, guild, channelId);
    core.log.info({ guildId: guild.id, channelId }, 'voice watchdog: rejoined');
  } catch (err) {
    core.log.error({ err, guildId: guild.id }, 'voice watchdog: rejoin failed');
    if (err instanceof DoNotReconnectError) return endAsAsked(core, g, err.reason);
    await linkLost(core, guild, channelId, 'rejoin failed');
  }
}
