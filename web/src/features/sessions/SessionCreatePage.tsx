import { ScreenPlaceholder } from '../../components/ScreenPlaceholder.tsx';

/** /add-session and /groups/:groupId/add-session. */
export function SessionCreatePage() {
  return <ScreenPlaceholder title="Manually Add Session" />;
}
