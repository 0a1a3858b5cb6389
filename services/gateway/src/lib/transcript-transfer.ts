import { TRANSCRIPT_BLOB_BUCKET, TRANSCRIPT_INLINE_BYTES } from '@chronicler/contracts';
import type { Bus } from '@chronicler/kit';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';

/**
 * A transcript can be larger than one bus message (1 MiB): a large one goes through the
 * blob store and the request names the blob, which the transcript service reads and deletes.
 */
export async function transcriptField(
  bus: Bus,
  text: string | undefined,
): Promise<{ transcript?: string; transcript_blob?: string }> {
  if (text === undefined) return {};
  if (text.length * 3 <= TRANSCRIPT_INLINE_BYTES || Buffer.byteLength(text) <= TRANSCRIPT_INLINE_BYTES) {
    return { transcript: text };
  }
  const name = randomUUID();
  await bus.blobs.put(TRANSCRIPT_BLOB_BUCKET, name, Readable.from([Buffer.from(text, 'utf8')]));
  return { transcript_blob: name };
}

/** The content of a transcript the service sent through the blob store (then deleted). */
export async function transferredContent(bus: Bus, name: string): Promise<string> {
  const stream = await bus.blobs.get(TRANSCRIPT_BLOB_BUCKET, name);
  if (!stream) throw new Error(`transcript blob ${name} is missing`);
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  await bus.blobs.delete(TRANSCRIPT_BLOB_BUCKET, name).catch(() => false);
  return Buffer.concat(chunks).toString('utf8');
}
