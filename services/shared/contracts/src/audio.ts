// Audio sessions: the upload's hand-off from the gateway to the transcript service and the
// durable transcription job.
import { Type, type Static } from '@sinclair/typebox';
import { rpc } from './rpc.ts';
import { TranscriptListItemSchema } from './transcripts.ts';

/**
 * Said by the server (400) and by the session form before any upload when no provider is set,
 * naming the settings that turn it on (the README's SPEECH_SETUP_SECTION tells how).
 */
export const AUDIO_UPLOAD_UNAVAILABLE =
  'Audio upload is not available: no speech-to-text provider is configured on this server. ' +
  'To turn it on, set TRANSCRIPTION_BASE_URL (any OpenAI-compatible server, such as a local Whisper), ' +
  'DEEPGRAM_API_KEY or ASSEMBLYAI_API_KEY.';

/**
 * Said by the session form and the recorder when no provider is set: recordings are kept and
 * wait for one ("Transcribe now").
 */
export const AUDIO_KEPT_UNTRANSCRIBED =
  'No speech-to-text provider is configured on this server: the recording is kept and can be ' +
  'transcribed with “Transcribe now” once TRANSCRIPTION_BASE_URL, DEEPGRAM_API_KEY or ASSEMBLYAI_API_KEY is set.';

/** Said (400) by "Transcribe now" when no provider is configured, naming the settings. */
export const TRANSCRIBE_NEEDS_PROVIDER =
  'No speech-to-text provider is configured on this server, so nothing can transcribe this recording yet. ' +
  'Set TRANSCRIPTION_BASE_URL (any OpenAI-compatible server, such as a local Whisper), DEEPGRAM_API_KEY or ' +
  'ASSEMBLYAI_API_KEY and restart, then try again.';

/**
 * svc.transcript.transcribe-now ("Transcribe now", POST /api/transcripts/{id}/transcribe): a
 * recorded session kept without a transcript (transcription 'none') is queued from its kept
 * recording, as an upload would be.
 */
export const transcribeNowRpc = rpc(
  'transcript',
  'transcribe-now',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), id: Type.String() }),
  TranscriptListItemSchema,
);

/** The README section that tells an operator how to turn speech-to-text on without a cloud account. */
export const SPEECH_SETUP_SECTION = 'Speech-to-text without a cloud account';

/** The largest recording accepted: 500 MB (the specification's limit), counted while streaming. */
export const AUDIO_MAX_BYTES = 500 * 1024 * 1024;

/** 'File too large. Maximum size is 500MB. Selected file: <size>MB' (one decimal). */
export const audioTooLargeMessage = (bytes: number): string =>
  `File too large. Maximum size is 500MB. Selected file: ${(bytes / (1024 * 1024)).toFixed(1)}MB`;

/** The specification's message for a file that is not audio; `declared` is the type the client sent. */
export const audioInvalidTypeMessage = (declared: string | null | undefined): string =>
  `Invalid file type. Please select an audio file (MP3, M4A, WAV, etc.). Detected type: ${declared || 'unknown'}`;

/** Blob bucket of uploaded recordings, from the gateway's upload until the job is done. */
export const AUDIO_BLOB_BUCKET = 'audio-uploads';

/** svc.transcript.audio-config: which speech provider transcribes uploads (null: none, uploads refused). */
export const audioConfigRpc = rpc(
  'transcript',
  'audio-config',
  Type.Object({}),
  Type.Object({ speech_provider: Type.Union([Type.String(), Type.Null()]) }),
);

/**
 * svc.transcript.create-audio: the recording is already in the blob store (`blob` in
 * AUDIO_BLOB_BUCKET); the service checks the form again, creates the session (transcription
 * 'queued') and queues the job. Refused requests leave the blob to the caller to delete.
 */
export const createAudioTranscriptRpc = rpc(
  'transcript',
  'create-audio',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    name: Type.Optional(Type.String()),
    session_date: Type.Optional(Type.String()),
    summary: Type.Optional(Type.String()),
    group_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    blob: Type.String({ minLength: 1 }),
    size: Type.Integer({ minimum: 1 }),
    /** The container recognised from the file's first bytes (mp3, wav, ...). */
    format: Type.String({ minLength: 1 }),
    /** The name the browser gave the file, for logs only. */
    filename: Type.String(),
  }),
  TranscriptListItemSchema,
);

/**
 * How long an uploaded recording is kept (the upload bucket's retention): a failed
 * transcription can be tried again within it without uploading the file again.
 */
export const AUDIO_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Said (409) when a failed transcription cannot be tried again because the recording is gone. */
export const AUDIO_RECORDING_GONE =
  'The recording is no longer stored, so it cannot be transcribed again. Delete this session and upload the recording again.';

/**
 * svc.transcript.retry-audio: a failed audio session whose recording is still stored is
 * queued again (its transcription_retryable was true).
 */
export const retryAudioTranscriptionRpc = rpc(
  'transcript',
  'retry-audio',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), id: Type.String() }),
  TranscriptListItemSchema,
);

/**
 * The durable transcription jobs. One message per audio session (msgId = transcript id, so a
 * retried create queues once); the transcript service's worker consumes them.
 */
export const AUDIO_JOBS_STREAM = 'AUDIO_JOBS';
export const AUDIO_JOB_SUBJECT = 'job.transcript.audio';
/** Kept 7 days: a job is acked when done; the window only bounds an outage's backlog. */
export const audioJobsStream = {
  name: AUDIO_JOBS_STREAM,
  subjects: ['job.transcript.>'],
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
};
/** A recording in AUDIO_BLOB_BUCKET (an upload, or a kept recording copied there by "Transcribe now"). */
const AudioUploadJobSchema = Type.Object({
  transcript_id: Type.String({ minLength: 1 }),
  owner_id: Type.String({ minLength: 1 }),
  blob: Type.String({ minLength: 1 }),
  size: Type.Integer({ minimum: 1 }),
  format: Type.String({ minLength: 1 }),
});
export type AudioUploadJob = Static<typeof AudioUploadJobSchema>;
/**
 * A voice-bot session recorded without a provider ("Transcribe now"): each speaker's kept track
 * (read when the job runs, so a track removed meanwhile is not transcribed) gives that speaker's lines.
 */
const AudioTracksJobSchema = Type.Object({
  transcript_id: Type.String({ minLength: 1 }),
  owner_id: Type.String({ minLength: 1 }),
  tracks: Type.Literal('kept'),
});
export const AudioJobSchema = Type.Union([AudioUploadJobSchema, AudioTracksJobSchema]);
export type AudioJob = Static<typeof AudioJobSchema>;
