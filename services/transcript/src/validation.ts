import { TRANSCRIPT_BLOB_BUCKET } from '@chronicler/contracts';
import { ServiceError, type Bus } from '@chronicler/kit';

/** Limits of the specification (§5), checked here whatever the client did. */
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

/** A transcript that came through the blob store: read it and delete the blob. */
export async function readTransferredText(bus: Bus, name: string): Promise<string> {
  if (!/^[0-9a-f-]{36}$/.test(name)) throw bad('Invalid transcript upload');
  const stream = await bus.blobs.get(TRANSCRIPT_BLOB_BUCKET, name);
  if (!stream) throw bad('Transcript upload not found');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += b.length;
    // 500,000 UTF-16 units are at most 1.5 MB of UTF-8.
    if (size > TRANSCRIPT_MAX * 3 + 16) throw bad('Transcript cannot exceed 500,000 characters');
    chunks.push(b);
  }
  await bus.blobs.delete(TRANSCRIPT_BLOB_BUCKET, name).catch(() => false);
  return Buffer.concat(chunks).toString('utf8');
}

/** The transcript text of a request: inline, or through the blob store. */
export async function transcriptOf(
  bus: Bus,
  req: { transcript?: string; transcript_blob?: string },
): Promise<string | undefined> {
  if (req.transcript_blob !== undefined) return readTransferredText(bus, req.transcript_blob);
  return req.transcript;
}
