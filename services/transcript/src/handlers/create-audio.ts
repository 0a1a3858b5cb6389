import {
  AUDIO_BLOB_BUCKET,
  AUDIO_JOB_SUBJECT,
  AUDIO_MAX_BYTES,
  audioTooLargeMessage,
  groupExistsRpc,
  type AudioJob,
  type createAudioTranscriptRpc,
  type RpcRequest,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { call, ServiceError, type Bus, type EventOutbox, type Logger } from '@chronicler/kit';
import type { SpeechProvider } from '@chronicler/speech';
import { keepRecording } from '../consumers/keep-recording.ts';
import type { AudioStore } from '../db/audio-store.ts';
import type { TranscriptStore } from '../db/store.ts';
import { bad, checkName, checkSummary, parseSessionDate } from '../validation.ts';

/**
 * svc.transcript.create-audio: the gateway has stored the recording; every check again here
 * (the service trusts no caller), then the session row and its transcription job in one
 * transaction (the outbox relays the job once committed): a session never exists without its
 * job, and a bus failing at that moment delays the job instead of failing the upload.
 * With no provider the session is created 'none' (not transcribed yet) and its recording kept
 * at once, so it plays and can be transcribed later ("Transcribe now").
 */
export const createAudio =
  (
    store: TranscriptStore,
    bus: Bus,
    outbox: EventOutbox,
    provider: SpeechProvider | null,
    kept: { audio: AudioStore; logger: Logger },
  ) =>
  async (req: RpcRequest<typeof createAudioTranscriptRpc>): Promise<TranscriptListItem> => {
    const name = checkName(req.name, 'Session name is required');
    const sessionTimestamp = parseSessionDate(req.session_date);
    const summary = req.summary ?? '';
    checkSummary(summary);
    if (req.size > AUDIO_MAX_BYTES) throw bad(audioTooLargeMessage(req.size));
    const groupId = req.group_id ? req.group_id : null;
    if (groupId) {
      const { exists } = await call(bus, groupExistsRpc, { owner_id: req.owner_id, id: groupId });
      if (!exists) throw new ServiceError('not_found', 'Group not found');
    }
    const stored = await bus.blobs.info(AUDIO_BLOB_BUCKET, req.blob);
    if (!stored || stored.size !== req.size) throw bad('Audio upload not found');

    const item = await store.createAudio(
      req.owner_id,
      {
        name,
        sessionTimestamp,
        summary,
        groupId,
        provider: provider?.name ?? '',
        audio: { blob: req.blob, size: req.size, format: req.format },
      },
      async (tx, created) => {
        if (!provider) return;
        const job: AudioJob = {
          transcript_id: created.id,
          owner_id: req.owner_id,
          blob: req.blob,
          size: req.size,
          format: req.format,
        };
        return outbox.add(tx, { subject: AUDIO_JOB_SUBJECT, payload: job, msgId: created.id });
      },
    );
    if (!provider) {
      const job: AudioJob = {
        transcript_id: item.id,
        owner_id: req.owner_id,
        blob: req.blob,
        size: req.size,
        format: req.format,
      };
      // Kept: the upload may go. Not kept (the store failed): the upload stays within its
      // bucket's retention and the session says it has no recording.
      if (await keepRecording({ bus, ...kept }, job)) await bus.blobs.delete(AUDIO_BLOB_BUCKET, req.blob);
      return item;
    }
    outbox.wake();
    return item;
  };
