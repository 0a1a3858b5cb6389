import type { TranscriptDetail } from '../../../api/types.ts';

/** Said under a summary that was made before a line of the transcript was edited or a speaker renamed. */
export function SummaryOutdatedNote({ session }: { session: TranscriptDetail }) {
  if (!session.summary_outdated || !session.summary.trim()) return null;
  return (
    <p className="notice notice-warning small" role="note">
      This summary was made before the transcript was last edited, so it may not match it. Edit or regenerate
      the summary to bring it up to date.
    </p>
  );
}
