import { useQuery } from '@tanstack/react-query';
import { useParams } from 'react-router-dom';
import { isApiError } from '../../api/http.ts';
import { getTranscript } from '../../api/transcripts.ts';
import { cacheTimes, queryKeys } from '../../app/query-client.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { SessionForm } from './SessionForm.tsx';

/** /sessions/:sessionId/edit. */
export function SessionEditPage() {
  const sessionId = useParams().sessionId ?? '';
  const session = useQuery({
    queryKey: queryKeys.transcript(sessionId),
    queryFn: () => getTranscript(sessionId),
    ...cacheTimes.transcriptDetail,
    enabled: sessionId !== '',
    // A missing or foreign session (404) will not appear by asking again.
    retry: (count, error) =>
      count < 2 && !(isApiError(error) && error.httpStatus !== undefined && error.httpStatus < 500),
  });

  return (
    <div className="page page-narrow">
      <header className="page-header">
        <h1 className="page-title">Edit Session</h1>
        <p className="page-lead">Update the details for this session.</p>
      </header>
      {session.isError || !sessionId ? (
        <p className="notice notice-error" role="alert">
          Failed to load session details.
        </p>
      ) : session.isPending ? (
        <div className="content-center">
          <Spinner label="Loading session..." />
        </div>
      ) : (
        // Keyed by session: the fields start from the loaded session, not from a previous one.
        <SessionForm key={session.data.id} mode="edit" session={session.data} />
      )}
    </div>
  );
}
