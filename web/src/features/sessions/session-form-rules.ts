// The session form's validation rules, kept apart from the component so they read as a list.
// The audio messages and limit come from the contracts, so the form and the server agree.
import {
  AUDIO_MAX_BYTES,
  audioInvalidTypeMessage,
  audioTooLargeMessage,
  SUMMARY_MAX,
  tooLongMessage,
  TRANSCRIPT_MAX,
} from '@chronicler/contracts';

const AUDIO_TYPES = new Set([
  'audio/mpeg',
  'audio/mp3',
  'audio/mp4',
  'audio/aac',
  'audio/wav',
  'audio/ogg',
  'audio/webm',
  'audio/x-m4a',
  'audio/x-mp3',
]);
/** Only consulted when the browser reports no type at all. */
const AUDIO_EXTENSIONS = new Set(['mp3', 'm4a', 'mp4', 'aac', 'wav', 'ogg', 'webm']);

/** What the file input's accept attribute offers (the browser's picker only; checked again below). */
export const AUDIO_ACCEPT = [...AUDIO_TYPES, ...[...AUDIO_EXTENSIONS].map((ext) => `.${ext}`)].join(',');

/** The spec's message for a file that is not an accepted recording or is too large; null when fine. */
export function audioFileError(file: { name: string; type: string; size: number }): string | null {
  const type = file.type.trim().toLowerCase();
  const extension = file.name.includes('.') ? file.name.split('.').pop()!.toLowerCase() : '';
  const accepted = type ? AUDIO_TYPES.has(type) : AUDIO_EXTENSIONS.has(extension);
  if (!accepted) return audioInvalidTypeMessage(file.type);
  if (file.size > AUDIO_MAX_BYTES) return audioTooLargeMessage(file.size);
  return null;
}

export interface SessionFormValues {
  name: string;
  /** YYYY-MM-DD from the date input, in the user's time zone. */
  date: string;
  summary: string;
  transcript: string;
  audio: File | null;
}

/**
 * The first message that stops a submit, or null. `transcriptChanged` is the create/edit
 * difference: a new session needs some content, an edited one needs content that changed.
 */
export function sessionFormError(
  values: SessionFormValues,
  mode: 'create' | 'edit',
  transcriptChanged: boolean,
): string | null {
  if (!values.name.trim()) return 'Session name is required';
  if (!values.date.trim() || !parseDateInput(values.date)) return 'Session date is required';
  const summary = values.summary.trim();
  const transcript = values.transcript.trim();
  const hasTranscript = mode === 'create' ? transcript !== '' : transcriptChanged && transcript !== '';
  if (!summary && !hasTranscript && !values.audio) {
    return 'Please provide either a summary, a transcript, or an audio file';
  }
  if (summary.length > SUMMARY_MAX) return tooLongMessage('Session summary', SUMMARY_MAX);
  if (values.transcript.length > TRANSCRIPT_MAX) return tooLongMessage('Transcript', TRANSCRIPT_MAX);
  if (values.audio) return audioFileError(values.audio);
  return null;
}

function parseDateInput(value: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value.trim());
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(2000, month - 1, day);
  // setFullYear, because the Date constructor maps years below 100 to 19xx.
  date.setFullYear(year, month - 1, day);
  if (Number.isNaN(date.getTime()) || date.getMonth() !== month - 1 || date.getDate() !== day) return null;
  return date;
}

/** session_date: the start of the chosen day in the user's time zone, as ISO UTC. */
export function sessionDateIso(value: string): string {
  const date = parseDateInput(value);
  if (!date) throw new Error(`Not a date: ${value}`);
  return date.toISOString();
}

/** The date input's value (local day) for a stored timestamp; '' when there is none. */
export function dateInputValue(timestamp: string | null | undefined): string {
  if (!timestamp) return '';
  const date = new Date(timestamp);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

/** Lines of a transcript that say something (blank lines are not counted). */
export function countTranscriptLines(text: string): number {
  return text.split('\n').filter((line) => line.trim() !== '').length;
}
