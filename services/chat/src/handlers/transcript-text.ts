import { getTranscriptRpc, TRANSCRIPT_BLOB_BUCKET } from '@chronicler/contracts';
import { call, type Bus } from '@chronicler/kit';

/**
 * One of the owner's transcripts, name and text. Another user's (or no) transcript fails with
 * the transcript service's not_found. A content too large for one bus message arrives through
 * the blob store, which this reader deletes once read (as the gateway does).
 */
export async function transcriptText(
  bus: Bus,
  ownerId: string,
  transcriptId: string,
): Promise<{ name: string; text: string }> {
  const t = await call(bus, getTranscriptRpc, { owner_id: ownerId, id: transcriptId });
  if (t.content !== undefined || !t.content_blob) return { name: t.name, text: t.content ?? '' };
  const stream = await bus.blobs.get(TRANSCRIPT_BLOB_BUCKET, t.content_blob);
  if (!stream) throw new Error(`transcript blob ${t.content_blob} is missing`);
  const chunks: Buffer[] = [];
  for await (const chunk of stream) {
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  }
  await bus.blobs.delete(TRANSCRIPT_BLOB_BUCKET, t.content_blob).catch(() => false);
  return { name: t.name, text: Buffer.concat(chunks).toString('utf8') };
}
