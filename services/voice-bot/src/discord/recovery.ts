import { listActiveTranscriptsRpc, transcriptExistsRpc } from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import { stat, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Guild } from 'discord.js';
import { announceReconnecting, loadResumePoint } from '../pipeline/index.ts';
import type { BotCore } from './core.ts';
import { loadConsent } from './consent.ts';
import { beginRecording } from './lifecycle.ts';
import { ensureLink } from './links.ts';
import { takeOver } from './handover.ts';
import { endRecovered, openStates, readState, republish, type SessionState } from './state.ts';

/**
 * Sessions a previous process of these shards left open (session.json not ended): handed over
 * by a shutdown (a deploy) or cut by a crash. Each is continued in the same transcript: the
 * journal re-published, the voice channel joined again from session.json (Discord drops the
 * bot's voice state when its gateway session ends), the utterance a crash cut transcribed
 * from the spooled audio, the gap marked in the transcript, one line in the text channel.
 * A session whose guild or channel is gone, or that the transcript service ended meanwhile
 * (it went stale), is ended here instead (and saved).
 */
export async function recover(core: BotCore): Promise<void> {
  const states = (await openStates(core.o.recordingsDir)).filter((s) => core.holdsGuild(s.guild_id));
  for (const state of states) {
    try {
      const guild = core.client.guilds.cache.get(state.guild_id);
      if (!guild?.channels.cache.has(state.channel_id)) {
        await endRecovered(
          core.o.bus,
          core.o.recordingsDir,
          state,
          'The voice bot restarted during the recording and its voice channel is gone; it was ended and saved.',
          core.log,
        );
        await core.post(
          state.text_channel_id,
          `The recording was interrupted by a restart of the bot and has been saved: ${core.sessionUrl(state.transcript_id)}`,
        );
        continue;
      }
      if (await endedMeanwhile(core, state)) {
        // The transcript service ended it while no bot held it (it went stale): nothing is
        // recorded into an ended session; what the journal holds is published and kept.
        await endRecovered(
          core.o.bus,
          core.o.recordingsDir,
          state,
          'The voice bot was away too long and the session was ended.',
          core.log,
        );
        await core.post(
          state.text_channel_id,
          `The recording was ended while the bot was away, and everything recorded until then has been saved: ${core.sessionUrl(state.transcript_id)}`,
        );
        continue;
      }
      await continueRecording(core, guild, state);
    } catch (err) {
      core.log.error({ err, transcriptId: state.transcript_id }, 'could not recover a session');
    }
  }
  // Speaker tracks of ended sessions not handed over before the last process went away.
  await core.tracks.recover((s) => core.holdsGuild(s.guild_id));
}

/**
 * Whether the session's transcript exists and is no longer active: ended by the transcript
 * service's stale sweep while no bot held it (or by its owner). Not known (the service does
 * not answer): continued, as a recording is never dropped for want of an answer.
 */
async function endedMeanwhile(core: BotCore, state: SessionState): Promise<boolean> {
  try {
    const ids = { owner_id: state.owner_id, id: state.transcript_id };
    if (!(await call(core.o.bus, transcriptExistsRpc, ids)).exists) return false;
    const active = await call(core.o.bus, listActiveTranscriptsRpc, { owner_id: state.owner_id });
    return !active.some((s) => s.transcript_id === state.transcript_id);
  } catch (err) {
    core.log.warn({ err, transcriptId: state.transcript_id }, 'could not ask whether a session was ended');
    return false;
  }
}

/** When the previous process stopped hearing: its hand-over, else the last write on disk. */
async function pausedAt(core: BotCore, state: SessionState): Promise<number> {
  if (state.suspended_at) return Date.parse(state.suspended_at);
  const dir = path.join(core.o.recordingsDir, state.transcript_id);
  let last = Date.parse(state.started_at);
  for (const f of await readdir(dir).catch(() => [] as string[])) {
    const s = await stat(path.join(dir, f)).catch(() => null);
    if (s) last = Math.max(last, s.mtimeMs);
  }
  return last;
}

/**
 * Records on into the same transcript, with its owner, group, keyterms and who is paused.
 * A session another process is still recording (a deploy that started this one first, or
 * whose predecessor waits for it) is taken over from it without a gap (handover.ts).
 */
async function continueRecording(core: BotCore, guild: Guild, found: SessionState): Promise<void> {
  const seamless =
    !found.suspended_at && (await takeOver(core, guild, found.transcript_id, found.channel_id));
  // The last word of whoever recorded it (handed over: suspended, who is paused; or it ended).
  const state = (await readState(core.o.recordingsDir, found.transcript_id)) ?? found;
  if (state.ended_at) {
    core.log.info({ transcriptId: state.transcript_id }, 'the session ended while it was being taken over');
    return;
  }
  const g = core.guildVoice(guild.id);
  const pausedMs = await pausedAt(core, state);
  const crashed = !state.suspended_at;
  // Whatever the last process journalled and had not published yet goes out first, in order.
  const journalled = await republish(core.o.bus, core.o.recordingsDir, state);
  const noticeIndex = journalled.length + 1;
  if (crashed) {
    const at = (pausedMs - Date.parse(state.started_at)) / 1000;
    await announceReconnecting(core.o.bus, state.transcript_id, noticeIndex, state.started_at, at);
  }
  await loadConsent(core, guild.id);
  for (const p of state.paused) if (!g.optedIn.has(p)) g.paused.add(p);
  const settings = await core.settings.get(guild.id);
  await ensureLink(core, guild, state.channel_id);
  const startedAtMs = Date.parse(state.started_at);
  const point = await loadResumePoint(core.o.recordingsDir, state.transcript_id, {
    startedAtMs,
    tails: crashed,
  });
  const rec = await beginRecording(core, guild, {
    ownerId: state.owner_id,
    ownerDiscordId: state.owner_discord_id,
    channelId: state.channel_id,
    textChannelId: state.text_channel_id,
    name: state.name,
    groupId: state.group_id,
    keyterms: state.keyterms ?? [],
    paused: g.paused,
    consentMode: settings.consent_mode,
    language: settings.language,
    resume: { state, point },
  });
  // What this process heard while its predecessor wrote out what it had (or died doing so):
  // in order, at the times it came, before anything heard from now on.
  const held = g.held;
  g.held = null;
  held?.replay(rec.handlers);
  if (seamless) {
    core.log.info(
      { transcriptId: state.transcript_id, heldSeconds: held?.seconds ?? 0, finals: point.finalCount },
      'recording taken over from the previous process without a gap',
    );
    return;
  }
  const gap = Math.max(0, Math.round((Date.now() - pausedMs) / 1000));
  const from = Math.max(0, (pausedMs - startedAtMs) / 1000);
  // Under the id of the "Reconnecting" notice viewers were shown, so that it replaces it (after
  // a crash the cut utterance, transcribed meanwhile, took the index that notice had).
  rec.live.note(
    `— recording paused for ${gap} s (bot ${crashed ? 'crash' : 'restart'}) —`,
    from,
    from + gap,
    crashed ? { id: noticeIndex } : {},
  );
  core.log.info(
    { transcriptId: state.transcript_id, gapSeconds: gap, crashed, finals: point.finalCount },
    'recording resumed in the same transcript after a restart',
  );
  await core.post(
    state.text_channel_id,
    `🔴 Recording resumed after a restart of the bot (paused ${gap} s): ${core.sessionUrl(state.transcript_id)}`,
  );
}
