import {
  AUDIO_BLOB_BUCKET,
  AUDIO_JOB_SUBJECT,
  AUDIO_RECORDING_GONE,
  AUDIO_UPLOAD_UNAVAILABLE,
  type AudioJob,
  type retryAudioTranscriptionRpc,
  type RpcRequest,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { ServiceError, type Bus } from '@chronicler/kit';
import type { SpeechProvider } from '@chronicler/speech';
import { randomUUID } from 'node:crypto';
import type { TranscriptStore } from '../db/store.ts';
import { bad, transcriptNotFound } from '../validation.ts';

/**
 * svc.transcript.retry-audio: a failed audio session whose recording is still stored goes
 * back to 'queued' with a new job (its own msgId: the first job's is the transcript id). A job
 * that cannot be queued leaves the session failed as it was.
 */
export const retryAudio =
  (store: TranscriptStore, bus: Bus, provider: SpeechProvider | null) =>
  async (req: RpcRequest<typeof retryAudioTranscriptionRpc>): Promise<TranscriptListItem> => {
    const item = await store.getItem(req.owner_id, req.id);
    if (!item) throw transcriptNotFound();
    if (item.source !== 'audio' || item.transcription_status !== 'failed') {
      throw new ServiceError('conflict', 'Only a failed transcription can be tried again.');
    }
    if (!provider) throw bad(AUDIO_UPLOAD_UNAVAILABLE);
    const stored = await store.storedAudio(req.owner_id, req.id);
    const blob = stored ? await bus.blobs.info(AUDIO_BLOB_BUCKET, stored.blob) : null;
    if (!stored || !blob) {
      await store.forgetAudio(req.owner_id, req.id);
      throw new ServiceError('conflict', AUDIO_RECORDING_GONE);
    }
    const audio = await store.requeueAudio(req.owner_id, req.id);
    // Another request queued it in between, or it was deleted.
    if (!audio) throw new ServiceError('conflict', 'Only a failed transcription can be tried again.');
    const job: AudioJob = {
      transcript_id: req.id,
      owner_id: req.owner_id,
      blob: audio.blob,
      size: audio.size,
      format: audio.format,
    };
    try {
      await bus.publishDurable(AUDIO_JOB_SUBJECT, job, { msgId: `${req.id}:retry:${randomUUID()}` });
    } catch (err) {
      await store.failAudio(req.owner_id, req.id, item.transcription_error).catch(() => false);
      throw err;
    }
    return (await store.getItem(req.owner_id, req.id))!;
  };
