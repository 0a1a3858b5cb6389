import { ScreenPlaceholder } from '../../components/ScreenPlaceholder.tsx';

/** /sessions/:sessionId/edit. */
export function SessionEditPage() {
  return <ScreenPlaceholder title="Edit Session" />;
}
