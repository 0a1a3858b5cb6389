import {
  TRANSCRIPT_BLOB_BUCKET,
  TRANSCRIPT_INLINE_BYTES,
  type getTranscriptRpc,
  type RpcResponse,
} from '@chronicler/contracts';
import type { Bus } from '@chronicler/kit';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import type { TranscriptStore } from '../db/store.ts';
import { transcriptNotFound } from '../validation.ts';

/** svc.transcript.get: one session with its content; a large content goes through the blob store. */
export const getTranscript =
  (store: TranscriptStore, bus: Bus) =>
  async (req: { owner_id: string; id: string }): Promise<RpcResponse<typeof getTranscriptRpc>> => {
    const t = await store.get(req.owner_id, req.id);
    if (!t) throw transcriptNotFound();
    if (
      t.content.length * 3 <= TRANSCRIPT_INLINE_BYTES ||
      Buffer.byteLength(t.content) <= TRANSCRIPT_INLINE_BYTES
    ) {
      return t;
    }
    const { content, ...rest } = t;
    const name = randomUUID();
    await bus.blobs.put(TRANSCRIPT_BLOB_BUCKET, name, Readable.from([Buffer.from(content, 'utf8')]));
    return { ...rest, content_blob: name };
  };
