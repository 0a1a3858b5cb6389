import type { TranscriptSummaryItem } from '../../api/types.ts';

/** How often the viewer asks again while an uploaded recording is being transcribed. */
const TRANSCRIPTION_POLL_MS = 3000;
/** How often the viewer re-reads an active (recording) session's content without a live connection. */
const ACTIVE_POLL_MS = 5000;
/**
 * With the live socket connected the lines arrive over it; the poll only catches what the
 * socket does not carry (a rename, an end the socket missed), so it can be slow.
 */
const ACTIVE_LIVE_POLL_MS = 30_000;

export const isActive = (session: Pick<TranscriptSummaryItem, 'status'>): boolean =>
  session.status === 'active';

export const isTranscribing = (session: Pick<TranscriptSummaryItem, 'transcription_status'>): boolean =>
  session.transcription_status === 'queued' || session.transcription_status === 'processing';

/** The refetch interval for a session: only sessions whose content is still changing are polled. */
export function pollInterval(
  session: TranscriptSummaryItem | undefined,
  liveConnected = false,
): number | false {
  if (!session) return false;
  if (isTranscribing(session)) return TRANSCRIPTION_POLL_MS;
  if (isActive(session)) return liveConnected ? ACTIVE_LIVE_POLL_MS : ACTIVE_POLL_MS;
  return false;
}
