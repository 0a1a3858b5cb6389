import type { ConsentMode } from '@chronicler/contracts';
import type { SemaphoreLease } from '@chronicler/kit';
import type { Guild } from 'discord.js';
import { randomUUID } from 'node:crypto';
import { LiveSession, type ResumePoint } from '../pipeline/index.ts';
import type { BotCore } from './core.ts';
import { serveHandover } from './handover.ts';
import { guardRecording, noticeText, reportPodLoad } from './limits.ts';
import { watchdogRejoin } from './links.ts';
import { keepRecapTarget } from './recap-post.ts';
import { postTranscript } from './transcript-post.ts';
import { Recording } from './recording.ts';
import { showRecording } from './rec-sign.ts';
import type { SessionState } from './state.ts';

export interface RecordingRequest {
  ownerId: string;
  ownerDiscordId: string;
  channelId: string;
  textChannelId: string;
  name: string;
  groupId: string | null;
  keyterms: string[];
  paused: Set<string>;
  /** From the server's settings at the start: kept for the whole recording. */
  consentMode: ConsentMode;
  language: string | null;
  /** Started by an auto-record rule: stopped when its channel has been empty this long. */
  autoRecord?: { empty_minutes: number };
  /** Continues a session a previous process left (same transcript), from its journal. */
  resume?: { state: SessionState; point: ResumePoint };
  /** The owner's slot its admission took (see admit); absent when continuing a session. */
  slot?: SemaphoreLease | null;
}

/**
 * Starts a recording in a guild whose voice link is up: a new live session (its transcript
 * created on the bus), its state journalled for recovery, and the end handled whichever way
 * it comes (a command, a lost channel, the provider failing for good).
 */
export async function beginRecording(core: BotCore, guild: Guild, r: RecordingRequest): Promise<Recording> {
  const g = core.guildVoice(guild.id);
  const transcriptId = r.resume?.state.transcript_id ?? randomUUID();
  const told = new Set<string>();
  const live = new LiveSession({
    bus: core.o.bus,
    transcriptId,
    ownerId: r.ownerId,
    name: r.name,
    ...(r.groupId ? { groupId: r.groupId } : {}),
    origin: 'discord',
    provider: core.o.provider,
    gate: core.o.gate,
    keyterms: r.keyterms,
    ...(r.language ? { language: r.language } : {}),
    recordingsDir: core.o.recordingsDir,
    logger: core.log,
    guildId: guild.id,
    channelId: r.channelId,
    maxSpeakers: core.limits.maxSpeakers,
    ...(core.o.streamPolicy ? { streamPolicy: core.o.streamPolicy } : {}),
    onNotice: (n) => {
      // Queued and over the limit are said once per speaker; each failure is said.
      const key = `${n.kind}:${n.speaker.key}`;
      if (n.kind !== 'failed' && told.has(key)) return;
      told.add(key);
      void core.post(r.textChannelId, noticeText(n));
    },
    ...(r.resume ? { resume: r.resume.point } : {}),
  });
  const state: SessionState = r.resume
    ? { ...r.resume.state, shard_id: guild.shardId, suspended_at: null }
    : {
        version: 1,
        transcript_id: transcriptId,
        owner_id: r.ownerId,
        owner_discord_id: r.ownerDiscordId,
        guild_id: guild.id,
        channel_id: r.channelId,
        text_channel_id: r.textChannelId,
        shard_id: guild.shardId,
        name: r.name,
        group_id: r.groupId,
        started_at: new Date().toISOString(),
        provider: core.o.provider?.name ?? null,
        paused: [...r.paused],
        keyterms: r.keyterms,
        ...(r.autoRecord ? { auto_record: r.autoRecord } : {}),
        ended_at: null,
      };
  const rec = new Recording(live, state, {
    guild,
    coord: core.o.coord,
    bus: core.o.bus,
    recordingsDir: core.o.recordingsDir,
    instance: core.o.instance,
    logger: core.log.child({ guildId: guild.id, transcriptId }),
    watchdogSeconds: core.o.watchdogSeconds,
    heartbeatSeconds: core.o.heartbeatSeconds,
    onStuck: (hit) => void watchdogRejoin(core, guild, hit),
    onEnded: (ended) => {
      void core.tracks.hand(ended);
      // The transcript as a file where the recording was announced (Craig and Archivist do).
      void postTranscript(core, ended);
      // Only an end takes the sign down: a hand-over (handOver) leaves it up for the next process.
      if (g.recording === null) void showRecording(core, guild, false);
    },
    consent: { mode: r.consentMode, optedIn: g.optedIn },
    present: guild.voiceStates.cache.filter((v) => v.channelId === r.channelId).map((v) => v.id),
  });
  g.recording = rec;
  try {
    await rec.begin();
  } catch (err) {
    g.recording = null;
    throw err;
  }
  // A successor process may take it over (a deploy): it asks this one, which answers.
  rec.handoff = serveHandover(core, guild, rec);
  reportPodLoad(core);
  void live.done.then(() => {
    void rec.handoff?.sub.unsubscribe();
    reportPodLoad(core);
  });
  const guard = guardRecording(
    core,
    {
      guildId: guild.id,
      ownerId: r.ownerId,
      startedAt: state.started_at,
      textChannelId: r.textChannelId,
      ...(r.slot !== undefined ? { slot: r.slot } : {}),
    },
    (message) => {
      if (g.recording !== rec) return;
      void stopRecording(core, guild.id).then(() =>
        core.post(r.textChannelId, `${message} Everything said is saved: ${core.sessionUrl(transcriptId)}`),
      );
    },
  );
  void live.done.then(() => guard.stop());
  await showRecording(core, guild, true);
  void keepRecapTarget(core, state);
  // The provider failed for good: the pipeline ended the session itself.
  void live.done.then((end) => {
    if (g.recording !== rec || !end.error) return;
    g.recording = null;
    void rec.end(end.error);
    void core.post(
      state.text_channel_id,
      `Recording stopped: ${end.error}. What was said so far is saved: ${core.sessionUrl(transcriptId)}`,
    );
  });
  return rec;
}

/** Ends the guild's recording, if one runs (every stream flushed, every final on the bus). */
export async function stopRecording(core: BotCore, guildId: string): Promise<Recording | null> {
  const g = core.guildVoice(guildId);
  const rec = g.recording;
  if (!rec) return null;
  g.recording = null;
  await rec.end();
  return rec;
}
