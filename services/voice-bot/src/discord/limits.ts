import { voiceRecordingLoad, voiceRecordingsRefused, type SemaphoreLease } from '@chronicler/kit';
import type { LiveNotice } from '../pipeline/index.ts';
import type { BotCore } from './core.ts';

const ownerKey = (ownerId: string): string => `voice:recordings:owner:${ownerId}`;
const guildDayKey = (guildId: string, at: Date): string =>
  `voice:guild-seconds:${guildId}:${at.toISOString().slice(0, 10)}`;
/** A key per UTC day, counted over a window longer than the day: the key alone bounds the sum. */
const DAY_WINDOW_MS = 2 * 86_400_000;
/** An owner's slot lapses this long after a crashed replica stopped extending it. */
const OWNER_LEASE_MS = 120_000;
const TICK_MS = 20_000;

function duration(seconds: number): string {
  const s = Math.round(seconds);
  const unit = (n: number, name: string): string => `${n} ${name}${n === 1 ? '' : 's'}`;
  if (s >= 3600 && s % 3600 === 0) return unit(s / 3600, 'hour');
  if (s >= 60 && s % 60 === 0) return unit(s / 60, 'minute');
  return unit(s, 'second');
}

/** Seconds this guild recorded today (UTC), every replica's recordings counted. */
async function guildSecondsToday(core: BotCore, guildId: string, add = 0): Promise<number> {
  const [total] = await core.o.coord.windowCounters.add([
    { key: guildDayKey(guildId, new Date()), windowMs: DAY_WINDOW_MS, delta: Math.round(add) },
  ]);
  return total ?? 0;
}

/**
 * A new recording's admission: the owner's slot among their concurrent recordings, taken now
 * so that two starts at once cannot both pass (null: no per-owner limit, or the shared store
 * did not answer, which never holds a recording back), or why it may not start, in words for
 * the owner. A slot not handed to a recording (it did not start) must be released.
 */
export type Admission = { slot: SemaphoreLease | null } | { refused: string };

export async function admit(
  core: BotCore,
  guildId: string,
  ownerId: string,
  channelId: string,
): Promise<Admission> {
  const l = core.limits;
  const full = overCapacity(core, guildId, channelId);
  if (full) return { refused: full };
  if (l.guildSecondsPerDay !== null) {
    const used = await guildSecondsToday(core, guildId).catch(() => 0);
    if (used >= l.guildSecondsPerDay) {
      return {
        refused: `This server has used its ${duration(l.guildSecondsPerDay)} of recording for today (UTC); recording is possible again after midnight UTC. Nothing was recorded.`,
      };
    }
  }
  if (l.maxPerOwner === null) return { slot: null };
  let slot: SemaphoreLease | null;
  try {
    slot = await core.o.coord.semaphores.acquire(ownerKey(ownerId), l.maxPerOwner, OWNER_LEASE_MS);
  } catch (err) {
    core.log.warn({ err, guildId }, 'owner recording slot not taken');
    return { slot: null };
  }
  if (slot) return { slot };
  const n = l.maxPerOwner;
  return {
    refused: `You already have ${n} recording${n === 1 ? '' : 's'} running, the most one account may run at once. Stop one with \`/stop\` where it runs, then \`/start\` again. Nothing was recorded.`,
  };
}

/** People (not bots) in a voice channel of a guild this process holds. */
function peopleIn(core: BotCore, guildId: string, channelId: string): number {
  const guild = core.client.guilds.cache.get(guildId);
  if (!guild) return 0;
  return guild.voiceStates.cache.filter((v) => v.channelId === channelId && !v.member?.user.bot).size;
}

/** This process's load: its recordings, and the people in their channels (each a potential speaker). */
function podLoad(core: BotCore): { recordings: number; speakers: number } {
  let recordings = 0;
  let speakers = 0;
  for (const [guildId, g] of core.allGuildVoices()) {
    if (!g.recording) continue;
    recordings++;
    speakers += peopleIn(core, guildId, g.recording.state.channel_id);
  }
  return { recordings, speakers };
}

/** Publishes the load and its bounds (the alert and the dashboards read them). */
export function reportPodLoad(core: BotCore): void {
  const load = podLoad(core);
  voiceRecordingLoad.set({ what: 'recordings', kind: 'running' }, load.recordings);
  voiceRecordingLoad.set({ what: 'speakers', kind: 'running' }, load.speakers);
  voiceRecordingLoad.set({ what: 'recordings', kind: 'limit' }, core.limits.podRecordings ?? 0);
  voiceRecordingLoad.set({ what: 'speakers', kind: 'limit' }, core.limits.podSpeakers ?? 0);
  // Present from the start, so that the alert's increase() sees the first refusal.
  for (const reason of ['recordings', 'speakers']) voiceRecordingsRefused.inc({ reason }, 0);
}

/**
 * Whether one more recording (of the people in `channelId`) would take this process beyond
 * its bound: the reason in the starter's words, counted for the alert; null when it fits.
 */
function overCapacity(core: BotCore, guildId: string, channelId: string): string | null {
  const l = core.limits;
  const load = podLoad(core);
  const people = peopleIn(core, guildId, channelId);
  let reason: 'recordings' | 'speakers' | null = null;
  if (l.podRecordings !== null && load.recordings + 1 > l.podRecordings) reason = 'recordings';
  else if (l.podSpeakers !== null && load.recordings > 0 && load.speakers + people > l.podSpeakers)
    reason = 'speakers';
  if (!reason) return null;
  voiceRecordingsRefused.inc({ reason });
  core.log.warn(
    { guildId, ...load, people, limits: [l.podRecordings, l.podSpeakers], reason },
    'recording refused: this voice bot is at capacity',
  );
  return `This Chronicler voice bot is at capacity right now (${
    reason === 'recordings'
      ? `${l.podRecordings} recording${l.podRecordings === 1 ? '' : 's'} at once`
      : `${l.podSpeakers} people in its recorded channels at once`
  }), so it cannot record here. Nothing was recorded: try \`/start\` again in a few minutes. Its operators have been alerted.`;
}

/** What the channel is told when a speaker is queued, over the limit, or their stream failed. */
export function noticeText(notice: LiveNotice): string {
  const who = notice.speaker.displayName.trim() || 'A speaker';
  switch (notice.kind) {
    case 'queued':
      return `⏳ ${who} is waiting for a free transcription stream (all are in use): their voice is recorded and is transcribed as soon as one frees.`;
    case 'speaker-limit':
      return `${who} is not transcribed: a recording transcribes at most ${notice.limit} speakers. Their voice is still recorded.`;
    case 'failed':
      return `⚠️ The speech service failed for ${who}: their words are missing from the transcript until it answers again (the stretch is marked there); their voice is still recorded, and everyone else is transcribed as before.`;
  }
}

interface RecordingGuard {
  stop(): Promise<void>;
}

/**
 * Holds one running recording to the limits: the owner's slot among their concurrent
 * recordings, the guild's daily hours (counted as it runs) and the maximum length (the channel
 * warned before). `end(message)` ends and saves the recording and posts the message.
 */
export function guardRecording(
  core: BotCore,
  r: {
    guildId: string;
    ownerId: string;
    startedAt: string;
    textChannelId: string;
    /** The slot its admission took; absent (a recording continued after a restart): taken here if free. */
    slot?: SemaphoreLease | null;
  },
  end: (message: string) => void,
): RecordingGuard {
  const l = core.limits;
  const log = core.log.child({ guildId: r.guildId });
  const timers: NodeJS.Timeout[] = [];
  let lease: SemaphoreLease | null = null;
  let stopped = false;
  let countedAt = Date.now();
  const taking: Promise<SemaphoreLease | null> =
    r.slot !== undefined
      ? Promise.resolve(r.slot)
      : l.maxPerOwner === null
        ? Promise.resolve(null)
        : core.o.coord.semaphores
            .acquire(ownerKey(r.ownerId), l.maxPerOwner, OWNER_LEASE_MS)
            .catch((err: unknown) => {
              log.warn({ err }, 'owner recording slot not taken');
              return null;
            });
  const acquired = taking.then((got) => {
    lease = got;
    if (stopped) void got?.release().catch(() => false);
  });
  const count = async (): Promise<void> => {
    const now = Date.now();
    const add = (now - countedAt) / 1000;
    countedAt = now;
    if (l.guildSecondsPerDay === null) return;
    const used = await guildSecondsToday(core, r.guildId, add);
    if (!stopped && used >= l.guildSecondsPerDay) {
      end(
        `⏹️ Recording ended: this server has used its ${duration(l.guildSecondsPerDay)} of recording for today (UTC).`,
      );
    }
  };
  const tick = setInterval(() => {
    void (lease as SemaphoreLease | null)?.extend(OWNER_LEASE_MS).catch(() => {});
    count().catch((err: unknown) => log.warn({ err }, 'guild recording time not counted'));
  }, TICK_MS);
  tick.unref();
  timers.push(tick);
  if (l.maxSessionSeconds !== null) {
    const max = l.maxSessionSeconds;
    const left = max * 1000 - (Date.now() - Date.parse(r.startedAt));
    const warnAt = left - l.warnSeconds * 1000;
    if (l.warnSeconds > 0 && warnAt > 0) {
      timers.push(
        setTimeout(() => {
          void core.post(
            r.textChannelId,
            `⏳ This recording reaches its maximum length of ${duration(max)} in ${duration(l.warnSeconds)}: it then ends and is saved. Run \`/start\` again to go on in a new session.`,
          );
        }, warnAt),
      );
    }
    timers.push(
      setTimeout(
        () => end(`⏹️ Recording ended: it reached its maximum length of ${duration(max)}.`),
        Math.max(0, left),
      ),
    );
  }
  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const t of timers) clearTimeout(t);
      await count().catch(() => {});
      await acquired;
      await (lease as SemaphoreLease | null)?.release().catch(() => false);
    },
  };
}
