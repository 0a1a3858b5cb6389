import {
  AUDIO_BLOB_BUCKET,
  AUDIO_JOB_SUBJECT,
  AUDIO_RECORDING_GONE,
  SESSION_AUDIO_BUCKET,
  TRANSCRIBE_NEEDS_PROVIDER,
  type AudioJob,
  type RpcRequest,
  type transcribeNowRpc,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { ServiceError, type Bus, type EventOutbox } from '@chronicler/kit';
import type { SpeechProvider } from '@chronicler/speech';
import { randomUUID } from 'node:crypto';
import type { AudioStore } from '../db/audio-store.ts';
import type { TranscriptStore } from '../db/store.ts';
import { bad, transcriptNotFound } from '../validation.ts';

const notWaiting = (item: TranscriptListItem): ServiceError =>
  item.transcription_status === 'queued' || item.transcription_status === 'processing'
    ? new ServiceError('conflict', 'This session is being transcribed already.')
    : item.transcription_status === 'completed'
      ? new ServiceError('conflict', 'This session is transcribed already.')
      : item.transcription_status === 'failed'
        ? new ServiceError('conflict', 'This transcription failed: use Retry transcription.')
        : new ServiceError(
            'conflict',
            'Only a recorded session that is not transcribed yet can be transcribed now.',
          );

/**
 * svc.transcript.transcribe-now: a recorded session kept without a transcript (made while no
 * provider was set) is queued like an upload. The kept recording is copied (streamed) to the
 * upload bucket as the job's file; the session's status and its job commit together.
 */
export const transcribeNow =
  (
    store: TranscriptStore,
    audio: AudioStore,
    bus: Bus,
    outbox: EventOutbox,
    provider: SpeechProvider | null,
  ) =>
  async (req: RpcRequest<typeof transcribeNowRpc>): Promise<TranscriptListItem> => {
    /**
     * A voice-bot session recorded while no provider was set: ended, no lines, its speakers'
     * tracks kept. The job reads the tracks where they are kept; nothing is copied.
     */
    const tracksNow = async (item: TranscriptListItem): Promise<TranscriptListItem> => {
      if (item.status !== 'ended' || item.transcription_status !== 'none' || item.preview !== '')
        throw notWaiting(item);
      if (!provider) throw bad(TRANSCRIBE_NEEDS_PROVIDER);
      if ((await audio.tracksOf(req.owner_id, req.id)).length === 0)
        throw new ServiceError('conflict', AUDIO_RECORDING_GONE);
      const queued = await store.queueUntranscribedTracks(req.owner_id, req.id, provider.name, (tx) => {
        const job: AudioJob = { transcript_id: req.id, owner_id: req.owner_id, tracks: 'kept' };
        return outbox.add(tx, {
          subject: AUDIO_JOB_SUBJECT,
          payload: job,
          msgId: `${req.id}:now:${randomUUID()}`,
        });
      });
      const now = await store.getItem(req.owner_id, req.id);
      if (!now) throw transcriptNotFound();
      if (!queued) throw notWaiting(now);
      outbox.wake();
      return now;
    };
    const item = await store.getItem(req.owner_id, req.id);
    if (!item) throw transcriptNotFound();
    if (item.source === 'live') return tracksNow(item);
    if (item.source !== 'audio' || item.transcription_status !== 'none') throw notWaiting(item);
    if (!provider) throw bad(TRANSCRIBE_NEEDS_PROVIDER);
    const kept = await audio.kept(req.owner_id, req.id);
    const source = kept ? await bus.blobs.get(SESSION_AUDIO_BUCKET, kept.blob) : null;
    if (!kept || !source) throw new ServiceError('conflict', AUDIO_RECORDING_GONE);
    const blob = randomUUID();
    const copied = await bus.blobs.put(AUDIO_BLOB_BUCKET, blob, source);
    const queued = await store
      .queueUntranscribed(
        req.owner_id,
        req.id,
        provider.name,
        { blob, size: copied.size, format: kept.format },
        (tx, a) => {
          const job: AudioJob = { transcript_id: req.id, owner_id: req.owner_id, ...a };
          return outbox.add(tx, { subject: AUDIO_JOB_SUBJECT, payload: job, msgId: `${req.id}:now:${blob}` });
        },
      )
      .catch(async (err: unknown) => {
        await bus.blobs.delete(AUDIO_BLOB_BUCKET, blob).catch(() => false);
        throw err;
      });
    if (!queued) {
      // Another request queued it first (or it was deleted): this copy is not needed.
      await bus.blobs.delete(AUDIO_BLOB_BUCKET, blob).catch(() => false);
      const now = await store.getItem(req.owner_id, req.id);
      if (!now) throw transcriptNotFound();
      throw notWaiting(now);
    }
    outbox.wake();
    return (await store.getItem(req.owner_id, req.id))!;
  };
