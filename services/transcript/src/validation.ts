import { nameTooLongMessage, SESSION_NAME_MAX } from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';

/** Summary and transcript length limits, checked here too whatever the client did. */
export const SUMMARY_MAX = 10_000;
export const TRANSCRIPT_MAX = 500_000;

export const bad = (message: string): ServiceError => new ServiceError('bad_request', message);
export const transcriptNotFound = (): ServiceError => new ServiceError('not_found', 'Transcript not found');

/** PostgreSQL text cannot hold NUL characters; refuse them rather than fail with a 500. */
export function assertNoNul(value: string, field: string): void {
  if (value.includes('\u0000')) throw bad(`${field} cannot contain NUL characters`);
}

export function checkSummary(summary: string): void {
  if (summary.length > SUMMARY_MAX) throw bad('Session summary cannot exceed 10,000 characters');
  assertNoNul(summary, 'Session summary');
}

export function checkTranscript(text: string): void {
  if (text.length > TRANSCRIPT_MAX) throw bad('Transcript cannot exceed 500,000 characters');
  assertNoNul(text, 'Transcript');
}

export function checkName(name: string | undefined, message: string): string {
  const trimmed = (name ?? '').trim();
  if (!trimmed) throw bad(message);
  // Checked here too, not only at the gateway: the bot and other services call the bus directly.
  if (trimmed.length > SESSION_NAME_MAX) throw bad(nameTooLongMessage('Session name', SESSION_NAME_MAX));
  assertNoNul(trimmed, 'Name');
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
