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
import { ServiceError, type Bus, type EventOutbox } from '@chronicler/kit';
import type { SpeechProvider } from '@chronicler/speech';
import { randomUUID } from 'node:crypto';
import type { TranscriptStore } from '../db/store.ts';
import { bad, transcriptNotFound } from '../validation.ts';

/**
 * svc.transcript.retry-audio: a failed audio session whose recording is still stored goes
 * back to 'queued' with a new job (its own msgId: the first job's is the transcript id), both
 * in one transaction (the outbox relays the job once committed).
 */
export const retryAudio =
  (store: TranscriptStore, bus: Bus, outbox: EventOutbox, provider: SpeechProvider | null) =>
  async (req: RpcRequest<typeof retryAudioTranscriptionRpc>): Promise<TranscriptListItem> => {
    const item = await store.getItem(req.owner_id, req.id);
    if (!item) throw transcriptNotFound();
    if (item.source === 'live' && item.transcription_status === 'failed') {
      // A voice-bot session transcribed from its speakers' kept tracks ("Transcribe now").
      if (!provider) throw bad(AUDIO_UPLOAD_UNAVAILABLE);
      const queued = await store.requeueTracks(req.owner_id, req.id, (tx) => {
        const job: AudioJob = { transcript_id: req.id, owner_id: req.owner_id, tracks: 'kept' };
        return outbox.add(tx, {
          subject: AUDIO_JOB_SUBJECT,
          payload: job,
          msgId: `${req.id}:retry:${randomUUID()}`,
        });
      });
      if (!queued) throw new ServiceError('conflict', AUDIO_RECORDING_GONE);
      outbox.wake();
      return (await store.getItem(req.owner_id, req.id))!;
    }
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
    const audio = await store.requeueAudio(req.owner_id, req.id, (tx, queued) => {
      const job: AudioJob = {
        transcript_id: req.id,
        owner_id: req.owner_id,
        blob: queued.blob,
        size: queued.size,
        format: queued.format,
      };
      return outbox.add(tx, {
        subject: AUDIO_JOB_SUBJECT,
        payload: job,
        msgId: `${req.id}:retry:${randomUUID()}`,
      });
    });
    // Another request queued it in between, or it was deleted.
    if (!audio) throw new ServiceError('conflict', 'Only a failed transcription can be tried again.');
    outbox.wake();
    return (await store.getItem(req.owner_id, req.id))!;
  };
