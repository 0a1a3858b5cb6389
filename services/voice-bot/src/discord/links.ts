import { voiceWatchdogRejoins } from '@chronicler/kit';
import type { Guild } from 'discord.js';
import type { BotCore } from './core.ts';
import type { WatchdogHit } from './recording.ts';
import type { VoiceLink } from './voice.ts';

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
    lost: (reason) => void linkLost(core, guild, channelId, reason),
  });
  try {
    g.link = await g.connecting;
    core.log.info({ guildId: guild.id, channelId }, 'joined voice channel');
    return g.link;
  } finally {
    g.connecting = null;
  }
}

/** The voice link dropped: join again and record on, or end the recording and say so. */
async function linkLost(core: BotCore, guild: Guild, channelId: string, reason: string): Promise<void> {
  const g = core.guildVoice(guild.id);
  if (core.stopping || g.link?.channelId !== channelId) return;
  g.link = null;
  const rec = g.recording;
  core.log.warn({ guildId: guild.id, channelId, reason, recording: Boolean(rec) }, 'voice link lost');
  if (!rec) return;
  rec.linkDropped();
  try {
    await ensureLink(core, guild, channelId);
    core.log.info({ guildId: guild.id }, 'voice link restored; the recording goes on');
  } catch (err) {
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
  const old = g.link;
  g.link = null;
  await old?.close({ stay: true }).catch(() => {});
  try {
    await ensureLink(core, guild, channelId);
    core.log.info({ guildId: guild.id, channelId }, 'voice watchdog: rejoined');
  } catch (err) {
    core.log.error({ err, guildId: guild.id }, 'voice watchdog: rejoin failed');
    await linkLost(core, guild, channelId, 'rejoin failed');
  }
}
