import type { TranscriptSummaryItem } from '../../api/types.ts';

/** How often the viewer asks again while an uploaded recording is being transcribed. */
export const TRANSCRIPTION_POLL_MS = 3000;
/** How often the viewer re-reads an active (recording) session's content. */
export const ACTIVE_POLL_MS = 5000;

export const isActive = (session: Pick<TranscriptSummaryItem, 'status'>): boolean =>
  session.status === 'active';

export const isTranscribing = (session: Pick<TranscriptSummaryItem, 'transcription_status'>): boolean =>
  session.transcription_status === 'queued' || session.transcription_status === 'processing';

/** The refetch interval for a session: only sessions whose content is still changing are polled. */
export function pollInterval(session: TranscriptSummaryItem | undefined): number | false {
  if (!session) return false;
  if (isTranscribing(session)) return TRANSCRIPTION_POLL_MS;
  if (isActive(session)) return ACTIVE_POLL_MS;
  return false;
}
