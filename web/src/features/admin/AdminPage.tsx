import { ScreenPlaceholder } from '../../components/ScreenPlaceholder.tsx';

/** /admin, reached only by admins (see RequireAdmin). */
export function AdminPage() {
  return <ScreenPlaceholder title="Admin Dashboard" />;
}
