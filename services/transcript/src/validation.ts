import { SESSION_NAME_MAX, SUMMARY_MAX, tooLongMessage, TRANSCRIPT_MAX } from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';

export const bad = (message: string): ServiceError => new ServiceError('bad_request', message);
export const transcriptNotFound = (): ServiceError => new ServiceError('not_found', 'Transcript not found');

/** PostgreSQL text cannot hold NUL characters; refuse them rather than fail with a 500. */
export function assertNoNul(value: string, field: string): void {
  if (value.includes('\u0000')) throw bad(`${field} cannot contain NUL characters`);
}

export function checkSummary(summary: string): void {
  // Checked here too whatever the client did.
  if (summary.length > SUMMARY_MAX) throw bad(tooLongMessage('Session summary', SUMMARY_MAX));
  assertNoNul(summary, 'Session summary');
}

export function checkTranscript(text: string): void {
  if (text.length > TRANSCRIPT_MAX) throw bad(tooLongMessage('Transcript', TRANSCRIPT_MAX));
  assertNoNul(text, 'Transcript');
}

export function checkName(name: string | undefined, message: string): string {
  const trimmed = (name ?? '').trim();
  if (!trimmed) throw bad(message);
  // Checked here too, not only at the gateway: the bot and other services call the bus directly.
  if (trimmed.length > SESSION_NAME_MAX) throw bad(tooLongMessage('Session name', SESSION_NAME_MAX));
  assertNoNul(trimmed, 'Name');
  // A name is one line: a break would split a file's heading and every list it is shown in.
  if (/[\r\n\u2028\u2029]/.test(trimmed)) throw bad('A session name cannot contain a line break');
  return trimmed;
}

/** The session date as an ISO timestamp; a blank one is `requiredMessage`, an invalid one 'Invalid session date'. */
export function parseSessionDate(
  value: string | undefined,
  requiredMessage = 'Session date is required',
): string {
  const trimmed = (value ?? '').trim();
  if (!trimmed) throw bad(requiredMessage);
  const ms = Date.parse(trimmed);
  if (!Number.isFinite(ms)) throw bad('Invalid session date');
  const d = new Date(ms);
  if (d.getUTCFullYear() < 1 || d.getUTCFullYear() > 9999) throw bad('Invalid session date');
  return d.toISOString();
}

/** The first 100 characters plus '...' when longer, else the whole text. */
export function previewOf(content: string): string {
  if (content.length <= 100) return content;
  let head = content.slice(0, 100);
  const last = head.charCodeAt(99);
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, 99);
  return `${head}...`;
}
