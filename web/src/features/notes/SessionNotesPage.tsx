import { ScreenPlaceholder } from '../../components/ScreenPlaceholder.tsx';

/** /sessions/:sessionId/notes. */
export function SessionNotesPage() {
  return <ScreenPlaceholder title="Session Notes" />;
}
