import { SpeechConfigSchema } from '@chronicler/speech';
import { Type, type Static } from '@sinclair/typebox';

const url = (description: string) => Type.String({ pattern: '^[a-z][a-z0-9+.-]*://', description });

/** The voice bot's environment (see README "Configuration"); the speech provider's comes with it. */
export const VoiceBotConfigSchema = Type.Composite([
  Type.Object({
    /** Unset: the service stays up, idle, and says so in its log and in /api/health. */
    DISCORD_BOT_TOKEN: Type.Optional(Type.String({ minLength: 1 })),
    /** The application (client) id: commands are registered under it. Required with a token. */
    DISCORD_APPLICATION_ID: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
    /** Register the commands in this guild only (they show at once; global ones can take a while). */
    DISCORD_DEV_GUILD_ID: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
    /** REST base, e.g. https://discord.com/api (tests: the local Discord peer). */
    DISCORD_API_URL: Type.Optional(url('Discord REST base URL, e.g. https://discord.com/api')),
    /** The web app's address: replies link to PUBLIC_URL/sessions/<id>. */
    PUBLIC_URL: Type.Optional(url('The web app address, e.g. https://chronicler.example.com')),
    /** Shards of the whole bot (every replica says the same). Unset: Discord's recommendation (GET /gateway/bot). */
    SHARD_COUNT: Type.Optional(Type.Integer({ minimum: 1, maximum: 4096 })),
    /**
     * Replicas sharing the shards (the StatefulSet's replicas): replica n runs the shards i with
     * i % SHARD_REPLICAS == n. Unset: one shard per replica (n alone), or every shard without an ordinal.
     */
    SHARD_REPLICAS: Type.Optional(Type.Integer({ minimum: 1, maximum: 4096 })),
    /** How long /recording's download links last (hours, at most 7 days). */
    RECORDING_LINK_TTL_HOURS: Type.Integer({ default: 24, minimum: 1, maximum: 168 }),
    /**
     * This replica's shard ids, comma-separated ("0,1"). Unset: the ordinal of a StatefulSet
     * pod (POD_NAME, else HOSTNAME, ending in -<n>) takes shard n; else every shard.
     */
    SHARD_IDS: Type.Optional(Type.String({ pattern: '^\\s*\\d+(\\s*,\\s*\\d+)*\\s*$' })),
    POD_NAME: Type.Optional(Type.String()),
    HOSTNAME: Type.Optional(Type.String()),
    /** Ogg per speaker, finals.jsonl and session.json per session. Unset: DATA_DIR/recordings. */
    RECORDINGS_DIR: Type.Optional(Type.String({ minLength: 1 })),
    /** Someone speaking this long with nothing decoding makes the watchdog rejoin. */
    VOICE_WATCHDOG_SECONDS: Type.Number({ default: 5, minimum: 0.5, maximum: 300 }),
    /**
     * How often a recording tells the transcript service it is alive (a coordination key that
     * lapses after three of these): its stale-session sweep leaves the session alone meanwhile.
     */
    LIVE_HEARTBEAT_SECONDS: Type.Number({ default: 30, minimum: 0.2, maximum: 600 }),
    /** Session name when /start names none. */
    LIVE_SESSION_DEFAULT_NAME: Type.String({ default: 'Live Transcription', minLength: 1, maxLength: 200 }),
    /**
     * A speaker's provider stream that hears nothing this long is closed and its gate slot freed
     * (the next speech opens another). Keep it above the provider's own idle rule's reach: the
     * stream sends KeepAlive meanwhile (Deepgram closes after 10 s without audio). 0: kept.
     */
    LIVE_STREAM_IDLE_SECONDS: Type.Number({ default: 30, minimum: 0, maximum: 86_400 }),
    /** Audio kept per speaker while every stream is in use, transcribed once one frees. */
    LIVE_STREAM_QUEUE_SECONDS: Type.Number({ default: 300, minimum: 0, maximum: 3600 }),
    /** After a speaker's stream failed for good (its retries spent), the next try this much later. */
    LIVE_STREAM_RETRY_SECONDS: Type.Number({ default: 20, minimum: 0, maximum: 3600 }),
    /** A recording ends (and is saved) after this long. 0: no limit. */
    MAX_SESSION_MINUTES: Type.Number({ default: 480, minimum: 0, maximum: 10_080 }),
    /** The channel is warned this long before MAX_SESSION_MINUTES ends the recording. */
    SESSION_END_WARNING_MINUTES: Type.Number({ default: 5, minimum: 0, maximum: 1440 }),
    /** Speakers transcribed per recording; later ones are told, recorded, not transcribed. 0: no limit. */
    MAX_SPEAKERS_PER_RECORDING: Type.Integer({ default: 25, minimum: 0, maximum: 1000 }),
    /** Recordings one Chronicler account may run at once (across guilds and replicas). 0: no limit. */
    MAX_RECORDINGS_PER_OWNER: Type.Integer({ default: 3, minimum: 0, maximum: 1000 }),
    /** Recording hours per server per UTC day, across replicas (coordination store). 0: no limit. */
    GUILD_RECORDING_HOURS_PER_DAY: Type.Number({ default: 0, minimum: 0, maximum: 24 }),
    /**
     * What one process (a pod) takes on: recordings at once, and people in their voice channels
     * (each one a speaker it may have to decode). A start beyond either is refused and counted
     * (chronicler_voice_recordings_refused_total). The chart derives both from the pod's
     * requests and `pnpm bench voice` (values.yaml). 0: no bound.
     */
    POD_MAX_RECORDINGS: Type.Integer({ default: 0, minimum: 0, maximum: 100_000 }),
    POD_MAX_SPEAKERS: Type.Integer({ default: 0, minimum: 0, maximum: 1_000_000 }),
    /**
     * After SIGTERM, how long each recording goes on while waiting for a successor process to
     * take it over without a gap (handover.ts), before it is suspended for whichever process
     * starts next. Held within SHUTDOWN_TIMEOUT_MS (see handoverWaitMs); 0: suspended at once.
     */
    HANDOVER_WAIT_SECONDS: Type.Number({ default: 20, minimum: 0, maximum: 600 }),
    /** The process's whole stop (the kit's setting), read here to keep the wait within it. */
    SHUTDOWN_TIMEOUT_MS: Type.Integer({ default: 15_000, minimum: 1000 }),
  }),
  SpeechConfigSchema,
]);
export type VoiceBotConfig = Static<typeof VoiceBotConfigSchema>;

/** The shard ids this replica runs, of `count` shards (SHARD_COUNT, or Discord's recommendation). */
export function shardIdsOf(config: VoiceBotConfig, count: number): number[] {
  let ids: number[];
  if (config.SHARD_IDS) {
    ids = config.SHARD_IDS.split(',').map((s) => Number(s.trim()));
  } else {
    const ordinal = /-(\d+)$/.exec(config.POD_NAME ?? config.HOSTNAME ?? '')?.[1];
    const all = Array.from({ length: count }, (_, i) => i);
    const replicas = config.SHARD_REPLICAS;
    if (ordinal !== undefined && replicas !== undefined) {
      if (Number(ordinal) >= replicas) {
        throw new Error(
          `Replica ${ordinal} is beyond SHARD_REPLICAS=${replicas} (replicas 0..${replicas - 1})`,
        );
      }
      ids = all.filter((i) => i % replicas === Number(ordinal));
    } else ids = ordinal !== undefined && count > 1 ? [Number(ordinal)] : all;
  }
  const bad = ids.filter((id) => !Number.isInteger(id) || id < 0 || id >= count);
  if (bad.length) {
    throw new Error(`Shard ids ${bad.join(', ')} are outside SHARD_COUNT=${count} (shards 0..${count - 1})`);
  }
  return [...new Set(ids)].sort((a, b) => a - b);
}

/** Time the stop keeps for flushing the recordings after waiting for successors. */
const FLUSH_RESERVE_MS = 25_000;

/**
 * How long a stopping bot waits for a successor per recording: HANDOVER_WAIT_SECONDS, less
 * whatever the flush after it needs of SHUTDOWN_TIMEOUT_MS; none with an in-memory bus (the
 * embedded mode: no other process can ask for the recording while this one runs).
 */
export function handoverWaitMs(c: VoiceBotConfig, busKind: 'nats' | 'memory'): number {
  if (busKind === 'memory') return 0;
  return Math.max(0, Math.min(c.HANDOVER_WAIT_SECONDS * 1000, c.SHUTDOWN_TIMEOUT_MS - FLUSH_RESERVE_MS));
}

/** The shard Discord routes a guild to: (guild_id >> 22) % shard_count. */
export const shardOfGuild = (guildId: string, shardCount: number): number =>
  Number((BigInt(guildId) >> 22n) % BigInt(shardCount));

/** The per-guild and per-owner limits of recordings (see README "Limits"); null: none. */
export interface RecordingLimits {
  maxSessionSeconds: number | null;
  warnSeconds: number;
  maxSpeakers: number | null;
  maxPerOwner: number | null;
  guildSecondsPerDay: number | null;
  /** This process's bound on recordings and on people in their channels. */
  podRecordings: number | null;
  podSpeakers: number | null;
}

export function limitsOf(c: VoiceBotConfig): RecordingLimits {
  const orNull = (n: number): number | null => (n > 0 ? n : null);
  return {
    maxSessionSeconds: orNull(c.MAX_SESSION_MINUTES * 60),
    warnSeconds: c.SESSION_END_WARNING_MINUTES * 60,
    maxSpeakers: orNull(c.MAX_SPEAKERS_PER_RECORDING),
    maxPerOwner: orNull(c.MAX_RECORDINGS_PER_OWNER),
    guildSecondsPerDay: orNull(c.GUILD_RECORDING_HOURS_PER_DAY * 3600),
    podRecordings: orNull(c.POD_MAX_RECORDINGS),
    podSpeakers: orNull(c.POD_MAX_SPEAKERS),
  };
}
