import { ScreenPlaceholder } from '../../components/ScreenPlaceholder.tsx';

/** /sessions/:sessionId. */
export function TranscriptViewerPage() {
  return <ScreenPlaceholder title="Transcript" />;
}
