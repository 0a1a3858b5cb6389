import { useParams } from 'react-router-dom';
import { SessionForm } from './SessionForm.tsx';

/** /add-session and /groups/:groupId/add-session. */
export function SessionCreatePage() {
  const { groupId } = useParams();
  return (
    <div className="page page-narrow">
      <header className="page-header">
        <h1 className="page-title">Manually Add Session</h1>
        <p className="page-lead">Fill out the details below to add a previous session to your campaign.</p>
      </header>
      {/* Keyed by group: the form starts fresh when the route's group changes. */}
      <SessionForm key={groupId ?? ''} mode="create" groupId={groupId || undefined} />
    </div>
  );
}
