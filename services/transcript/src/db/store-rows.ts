// The transcripts table's rows as the store reads and writes them: columns, mapping, shapes.
import type { TranscriptListItem } from '@chronicler/contracts';
import type { Queryable } from '@chronicler/kit';

/** Work done in the transaction of a write, before it commits (the events announcing it). */
export type WithinWrite<T> = (tx: Queryable, written: T) => Promise<void>;

export const iso = (v: unknown): string =>
  v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString();

/** A timestamptz column as the ISO 8601 text Date.toISOString() writes (UTC, milliseconds). */
const isoText = (column: string, as: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ${as}`;

/**
 * A session's list item. The timestamps come as the text they are sent as: the driver parses
 * no timestamptz into a Date and nothing formats it back (both were a tenth of the service's
 * CPU on list reads). The aliases differ from the columns so that `order by session_timestamp`
 * beside them still orders by the column (and its index), not by the text.
 */
export const ITEM_COLUMNS =
  `id, name, ${isoText('session_timestamp', 'session_ts')}, ${isoText('created_at', 'created_ts')}, ` +
  `${isoText('last_activity', 'activity_ts')}, status, group_id, summary, preview, ` +
  'source, transcription_status, transcription_error, audio_seconds, summary_status';

const SOURCES = new Set(['live', 'manual', 'audio']);
export const TRANSCRIPTION_STATES = new Set(['none', 'queued', 'processing', 'completed', 'failed']);
const SUMMARY_STATES = new Set(['none', 'generating', 'done', 'failed']);

export function toItem(r: Record<string, unknown>): TranscriptListItem {
  return {
    id: String(r.id),
    name: String(r.name),
    session_timestamp: String(r.session_ts),
    created_at: String(r.created_ts),
    last_activity: String(r.activity_ts),
    status: r.status === 'active' ? 'active' : 'ended',
    group_id: r.group_id ? String(r.group_id) : '',
    summary: String(r.summary),
    preview: String(r.preview),
    source: (SOURCES.has(String(r.source)) ? r.source : 'manual') as TranscriptListItem['source'],
    transcription_status: (TRANSCRIPTION_STATES.has(String(r.transcription_status))
      ? r.transcription_status
      : 'none') as TranscriptListItem['transcription_status'],
    transcription_error: String(r.transcription_error ?? ''),
    audio_seconds: Number(r.audio_seconds ?? 0),
    summary_status: (SUMMARY_STATES.has(String(r.summary_status))
      ? r.summary_status
      : 'none') as TranscriptListItem['summary_status'],
  };
}

export interface NewTranscript {
  name: string;
  sessionTimestamp: string;
  summary: string;
  content: string;
  preview: string;
  groupId: string | null;
}

/** A position in the session list: the last session of a page. */
export interface ListCursor {
  ts: string;
  created: string;
  id: string;
}

/** What GET /transcripts/active needs of a session row. */
export interface ActiveRow {
  id: string;
  session_timestamp: string;
  created_at: string;
  last_activity: string;
}

export interface TranscriptChanges {
  name: string;
  summary: string;
  sessionTimestamp?: string;
  content?: string;
  preview?: string;
}

export interface NewAudioTranscript {
  name: string;
  sessionTimestamp: string;
  summary: string;
  groupId: string | null;
  /** '' when no provider is set: the recording is kept, not transcribed ('none'). */
  provider: string;
  /** The stored recording: its blob name, size in bytes and format. */
  audio: { blob: string; size: number; format: string };
}

/** The stored recording of an audio session. */
export interface StoredAudio {
  blob: string;
  size: number;
  format: string;
}

/** The columns of a stored recording (bigint comes back as text from node-postgres). */
export interface StoredAudioRow {
  audio_blob: string;
  audio_size: string | number;
  audio_format: string;
}

export const toStoredAudio = (r: StoredAudioRow): StoredAudio => ({
  blob: r.audio_blob,
  size: Number(r.audio_size),
  format: r.audio_format,
});

/** Where an audio session's transcription stands, for the worker. */
export interface AudioJobState {
  status: TranscriptListItem['transcription_status'];
  jobId: string;
}
