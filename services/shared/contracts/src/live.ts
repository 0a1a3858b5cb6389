import { Type, type Static } from '@sinclair/typebox';
import { rpc } from './rpc.ts';

/** A transcript id of a live session (a UUID: the pipeline makes it, the database keys it). */
export const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
import { formatTranscriptLine } from './transcript-lines.ts';

/**
 * Live sessions: what the live pipeline (voice bot, replay) publishes, what the transcript
 * service stores and re-publishes with a per-transcript sequence number, and what the
 * socket at /socket.io sends to browsers.
 *
 *   pipeline --live.<tid>.start|final|end (JetStream LIVE, msgId)--+--> transcript service (stores)
 *                                                                   +--> live-fanout (delivers)
 *   live-fanout --fanout.<tid> (core)--> the gateways that hold a viewer of <tid> -> their sockets
 *   pipeline --live.<tid>.interim (core, fire-and-forget)--> live-fanout --fanout.<tid>--> same
 *   transcript --fanout.<tid>--> lost markers, session ends, finals live-fanout cannot place
 *
 * LIVE is the one stored hop, read by two durables side by side: a viewer's line never waits
 * for PostgreSQL, and every line shown is already in LIVE, so it is stored too. A gateway
 * subscribes to `fanout.<tid>` while it has a viewer of <tid> (no queue group, no adapter
 * broadcast). The hop to the sockets is not stored: a viewer that missed a delivery asks for
 * the lines after the last seq it holds (the stored ones, then live-fanout's recent window).
 */

/** Durable stream of what the pipeline sends; the transcript service consumes it. */
export const LIVE_STREAM = 'LIVE';
export const liveStream = {
  name: LIVE_STREAM,
  subjects: ['live.*.start', 'live.*.final', 'live.*.end'],
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
  // A pipeline that reconnects re-publishes what it could not confirm; the database's
  // unique (transcript, utterance) catches anything older than this window.
  duplicateWindowMs: 10 * 60 * 1000,
};

export const liveSubject = {
  start: (transcriptId: string) => `live.${transcriptId}.start`,
  final: (transcriptId: string) => `live.${transcriptId}.final`,
  end: (transcriptId: string) => `live.${transcriptId}.end`,
  interim: (transcriptId: string) => `live.${transcriptId}.interim`,
  /** The transcript service -> the gateways' socket edge. */
  fanout: (transcriptId: string) => `fanout.${transcriptId}`,
};
/** The transcript and the kind of a subject that liveSubject built; null for any other subject. */
export function parseLiveSubject(
  subject: string,
): { transcriptId: string; kind: 'start' | 'final' | 'end' | 'interim' } | null {
  const [live, transcriptId, kind, ...rest] = subject.split('.');
  if (live !== 'live' || !transcriptId || rest.length > 0) return null;
  if (kind !== 'start' && kind !== 'final' && kind !== 'end' && kind !== 'interim') return null;
  return { transcriptId, kind };
}
/** Wildcards for subscribers. */
export const LIVE_INTERIM_ALL = 'live.*.interim';
export const FANOUT_ALL = 'fanout.*';

/**
 * Whether live-fanout delivers this final straight from LIVE, before it is stored: it has its
 * place (final_index, which becomes the stored seq). The transcript service delivers the
 * others after storing them (a final without a place gets the next seq), so both sides
 * decide alike from the message alone and every final is delivered by exactly one of them.
 */
export const fannedOutFromLive = (u: LiveUtterance): boolean => u.final_index !== undefined;

export const liveMsgId = {
  start: (transcriptId: string) => `start:${transcriptId}`,
  final: (transcriptId: string, utteranceId: string) => `final:${transcriptId}:${utteranceId}`,
  end: (transcriptId: string) => `end:${transcriptId}`,
};

/** Longest line text a pipeline may send (a minute of fast speech is ~1,500 characters). */
export const LIVE_TEXT_MAX = 10_000;
export const UTTERANCE_ID_MAX = 200;
/** Interim lines older than this are dropped by the viewer (a final that never came). */
export const INTERIM_LIFETIME_MS = 30_000;

export const SpeakerInfoSchema = Type.Object({
  displayName: Type.String({ minLength: 1, maxLength: 100 }),
  /** The speaker's Discord user id, when the pipeline knows it. */
  user_id: Type.Optional(Type.String({ maxLength: 64 })),
});
export type SpeakerInfo = Static<typeof SpeakerInfoSchema>;

/** A session starts: the transcript is created for its owner (idempotent by transcript id). */
export const LiveSessionStartSchema = Type.Object({
  transcript_id: Type.String({ pattern: UUID_PATTERN }),
  owner_id: Type.String({ minLength: 1 }),
  /** Default 'Live Transcription'. */
  name: Type.Optional(Type.String({ maxLength: 200 })),
  group_id: Type.Optional(Type.String()),
  /** ISO time the recording started: offsets count from here. */
  started_at: Type.String(),
  /** Who drives it: the Discord bot, a replay (tests, demos, load) or a recording at the table (a browser). */
  origin: Type.Union([Type.Literal('discord'), Type.Literal('replay'), Type.Literal('table')]),
  /** Speech provider streaming it, when there is one ('deepgram', 'assemblyai'). */
  provider: Type.Optional(Type.String()),
  guild_id: Type.Optional(Type.String()),
  channel_id: Type.Optional(Type.String()),
});
export type LiveSessionStart = Static<typeof LiveSessionStartSchema>;

/** One utterance from speech-to-text, interim or final. */
export const LiveUtteranceSchema = Type.Object({
  transcript_id: Type.String({ pattern: UUID_PATTERN }),
  /** Stable across the interims and the final of one utterance; unique in the transcript. */
  utterance_id: Type.String({ minLength: 1, maxLength: UTTERANCE_ID_MAX }),
  text: Type.String({ maxLength: LIVE_TEXT_MAX }),
  /** A speaker number (diarized audio) or a name. */
  speaker_tag: Type.Union([Type.Integer({ minimum: 0 }), Type.String({ maxLength: 100 })]),
  /** Present for a known user's line (per-speaker Discord audio, replays): user_* events. */
  speaker_info: Type.Optional(SpeakerInfoSchema),
  /** Seconds from the start of the session. */
  start_seconds: Type.Number({ minimum: 0 }),
  end_seconds: Type.Number({ minimum: 0 }),
  /** Interims the pipeline has sent for this session so far (for the active-session counters). */
  interim_count: Type.Optional(Type.Integer({ minimum: 0 })),
  /**
   * Finals: this one's place in the session (1, 2, 3 ... in the order the pipeline published
   * them), which becomes the stored line's seq. The transcript service stores a final at its
   * place as soon as it arrives, so a redelivery after a crash that comes after newer ones
   * still reads in the spoken order, and holds nothing up.
   */
  final_index: Type.Optional(Type.Integer({ minimum: 1 })),
  /** The session's start (ISO), so an interim can be shown with its time before any line is stored. */
  session_start_time: Type.Optional(Type.String()),
});
export type LiveUtterance = Static<typeof LiveUtteranceSchema>;

export const LiveSessionEndSchema = Type.Object({
  transcript_id: Type.String({ pattern: UUID_PATTERN }),
  ended_at: Type.String(),
  /** Finals the pipeline published: the transcript service knows when it has them all. */
  final_count: Type.Integer({ minimum: 0 }),
  interim_count: Type.Optional(Type.Integer({ minimum: 0 })),
  /** Why it ended, when it was not a stop by the user (speech provider down, bot kicked). */
  error: Type.Optional(Type.String({ maxLength: 1000 })),
});
export type LiveSessionEnd = Static<typeof LiveSessionEndSchema>;

/** A stored final line, as the transcript service keeps it and sends it to viewers. */
export const LiveLineSchema = Type.Object({
  /** 1, 2, 3 ... per transcript, the final's place in the session (final_index): the replay cursor. */
  seq: Type.Integer({ minimum: 1 }),
  utterance_id: Type.String(),
  text: Type.String(),
  speaker_tag: Type.Union([Type.Integer(), Type.String()]),
  speaker_info: Type.Optional(SpeakerInfoSchema),
  start_seconds: Type.Number(),
  end_seconds: Type.Number(),
  /** ISO time the utterance started (session start + start_seconds). */
  timestamp: Type.String(),
  /**
   * A marker, not speech: the final of this place never arrived (the pipeline died between
   * numbering and publishing it) and its gap was closed as lost. Its text is empty.
   */
  lost: Type.Optional(Type.Literal(true)),
});
export type LiveLine = Static<typeof LiveLineSchema>;

/** A stored line in the transcript's text form: '[HH:MM:SS] speaker: text'. */
export const liveLineText = (line: LiveLine): string =>
  formatTranscriptLine({
    seconds: line.start_seconds,
    speaker: line.speaker_info?.displayName ?? line.speaker_tag,
    text: line.text,
  });

/** The text of a live session: one line per final, in seq order (lost markers are not speech). */
export const liveContent = (lines: readonly LiveLine[]): string =>
  lines
    .filter((l) => !l.lost)
    .map(liveLineText)
    .join('\n');

// --- The socket. Event names are the public protocol's: never rename them. ------------

export const LiveSocketEvents = {
  join: 'join-transcription',
  joined: 'joined-transcription',
  interim: 'interim_update',
  final: 'final_update',
  userInterim: 'user_interim_update',
  userFinal: 'user_final_update',
  sessionEnd: 'session_end',
  /** Refusals of a join (not found, bad request): not in the specification's list, ours. */
  error: 'transcription_error',
} as const;

/** join-transcription: `last_seq` (ours) asks for the lines after it; absent or 0: everything. */
export const LiveJoinSchema = Type.Object({
  transcriptId: Type.String({ minLength: 1, maxLength: 100 }),
  last_seq: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type LiveJoin = Static<typeof LiveJoinSchema>;

export interface JoinedTranscription {
  transcript_id: string;
  session_start_time: string;
  status: 'active' | 'ended';
  /** The newest stored line's seq when the join was answered. */
  last_seq: number;
}

/**
 * A live transcription event. `type` is 'interim' or 'final' for one utterance;
 * 'initial' carries the lines a joining (or catching-up) client is missing in `lines` and
 * the whole final text in `content`; 'content_update' replaces the whole final text.
 */
export interface LiveTranscriptionEvent {
  transcript_id: string;
  type: 'interim' | 'final' | 'initial' | 'content_update';
  utterance_id: string;
  text: string;
  speaker_tag: number | string;
  speaker_info?: SpeakerInfo;
  timestamp: string;
  session_start_time: string;
  /** Seconds from the session start. */
  start_seconds: number;
  end_seconds: number;
  /** Finals, initial, content_update: the newest seq this event brings the client to. */
  seq?: number;
  content?: string;
  /** initial: the stored lines after the client's last_seq, in order. */
  lines?: LiveLine[];
  /** A final that is a lost marker (LiveLine.lost): it holds its seq and says nothing. */
  lost?: true;
}

/** session_end: the session's name, summary and llm_summary, with our own fields added. */
export interface SessionEndEvent {
  transcript_id: string;
  name: string;
  summary: string;
  llm_summary: string;
  ended_at: string;
  /** The last line of the session: a client that has less asks for the rest before closing. */
  last_seq: number;
  error?: string;
}

/** What the transcript service hands the socket edge: one socket.io event for one transcript's room. */
export const FanoutDeliverySchema = Type.Object({
  transcript_id: Type.String(),
  event: Type.String(),
  payload: Type.Unknown(),
});
export type FanoutDelivery = Static<typeof FanoutDeliverySchema>;

/** The socket.io room of one transcript. */
export const liveRoom = (transcriptId: string): string => `transcript:${transcriptId}`;

// --- RPCs -----------------------------------------------------------------------------

/**
 * svc.transcript.live-join: the owner's transcript as a joining viewer needs it: its start,
 * status and the stored lines after `after_seq` (at most `limit`; `more` when cut).
 * Another owner's or an unknown id: not_found.
 */
export const liveJoinRpc = rpc(
  'transcript',
  'live-join',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    after_seq: Type.Integer({ minimum: 0 }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 5000 })),
  }),
  Type.Object({
    transcript_id: Type.String(),
    session_start_time: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('ended')]),
    name: Type.String(),
    last_seq: Type.Integer(),
    /** When it ended; absent while it runs. */
    ended_at: Type.Optional(Type.String()),
    lines: Type.Array(LiveLineSchema),
    more: Type.Boolean(),
  }),
);

/**
 * svc.live-fanout.window: the recent lines live-fanout delivered for a session after
 * `after_seq` (its bounded window, in seq order), which a join adds to the stored ones: a line
 * delivered before it was stored is found here. `known`: the window holds the session.
 */
export const liveWindowRpc = rpc(
  'live-fanout',
  'window',
  Type.Object({
    id: Type.String({ minLength: 1, maxLength: 100 }),
    after_seq: Type.Integer({ minimum: 0 }),
  }),
  Type.Object({
    known: Type.Boolean(),
    lines: Type.Array(LiveLineSchema),
  }),
);

// --- The ingest entry (gateway /api/live-ingest): replays into a running system without NATS.

/** Where the embedded system keeps its machine key for the ingest entry (in DATA_DIR). */
export const LIVE_INGEST_KEY_FILE = 'live-ingest.key';

export const LiveIngestStartBodySchema = Type.Object(
  {
    owner_id: Type.String({ minLength: 1, maxLength: 100 }),
    name: Type.Optional(Type.String({ maxLength: 200 })),
    group_id: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);

export const LiveIngestStartResponseSchema = Type.Object({
  transcript_id: Type.String(),
  started_at: Type.String(),
  /** Proves the session was started here: writes need it, so nothing else can be written into. */
  ingest_token: Type.String(),
});

export const LiveIngestUtterancesBodySchema = Type.Object(
  {
    ingest_token: Type.String({ minLength: 1, maxLength: 200 }),
    utterances: Type.Array(
      Type.Intersect([
        Type.Omit(LiveUtteranceSchema, ['transcript_id', 'session_start_time']),
        Type.Object({ is_final: Type.Boolean() }),
      ]),
      { minItems: 1, maxItems: 500 },
    ),
  },
  { additionalProperties: false },
);

export const LiveIngestEndBodySchema = Type.Object(
  {
    ingest_token: Type.String({ minLength: 1, maxLength: 200 }),
    final_count: Type.Integer({ minimum: 0 }),
    interim_count: Type.Optional(Type.Integer({ minimum: 0 })),
    error: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
