import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { errorDetail } from '../../api/http.ts';
import { deleteRecordedData, getRecordedData, type RecordedSession } from '../../api/mydata.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { useAuth } from '../auth/useAuth.ts';
import { formatSessionDate } from '../dashboard/dashboard-data.ts';

const QUERY_KEY = ['me', 'recorded'];

function RecordedCard({ session }: { session: RecordedSession }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation({
    mutationFn: () => deleteRecordedData(session.transcript_id),
    onSuccess: async (r) => {
      toast.success(
        `Removed ${r.lines} line${r.lines === 1 ? '' : 's'}${r.tracks ? ' and your voice track' : ''} from “${session.name}”`,
      );
      setConfirming(false);
      await queryClient.invalidateQueries({ queryKey: QUERY_KEY });
    },
    onError: (cause) => toast.error(errorDetail(cause, 'Failed to delete your recorded data')),
  });
  const titleId = `recorded-${session.transcript_id}`;
  return (
    <li className="card" aria-labelledby={titleId}>
      <h2 id={titleId} className="card-title">
        {session.name}
      </h2>
      <p className="muted small">
        {formatSessionDate(session.started_at)} · {session.lines} line{session.lines === 1 ? '' : 's'} of
        yours · {session.track ? 'your voice track is kept' : 'no voice track'}
      </p>
      <ol className="my-data-lines" aria-label="Your lines">
        {(session.own_lines ?? []).map((line, i) => (
          <li key={i}>{line}</li>
        ))}
      </ol>
      {confirming ? (
        <div className="button-row" role="group" aria-label="Confirm deletion">
          <span className="small">
            Your lines become “[removed at the speaker’s request]” and your voice track is deleted. This
            cannot be undone.
          </span>
          <button
            type="button"
            className="button button-danger"
            disabled={remove.isPending}
            onClick={() => remove.mutate()}
          >
            {remove.isPending ? 'Deleting...' : 'Yes, delete my data'}
          </button>
          <button type="button" className="button button-secondary" onClick={() => setConfirming(false)}>
            Cancel
          </button>
        </div>
      ) : (
        <div className="button-row">
          <button type="button" className="button button-secondary" onClick={() => setConfirming(true)}>
            Delete my data from this session
          </button>
        </div>
      )}
    </li>
  );
}

/**
 * "My recorded data": what the voice bot recorded of the signed-in user in other people's
 * sessions (found by the Discord account they signed in with), their own lines only, and
 * the removal of their part of one session.
 */
export function MyDataPage() {
  const { user } = useAuth();
  const recorded = useQuery({
    queryKey: QUERY_KEY,
    queryFn: getRecordedData,
    enabled: Boolean(user?.discord_id),
  });
  return (
    <div className="page">
      <header className="page-header">
        <h1 className="page-title">My recorded data</h1>
      </header>
      <p className="muted">
        Sessions recorded by the Chronicler bot in Discord in which you spoke. Only you see your lines here;
        you can delete them and your voice track from any session.
      </p>
      {!user?.discord_id ? (
        <p>Sign in with Discord to see what the bot recorded of you.</p>
      ) : recorded.isPending ? (
        <Spinner label="Loading your recorded data" />
      ) : recorded.isError ? (
        <p role="alert">{errorDetail(recorded.error, 'Failed to load your recorded data')}</p>
      ) : recorded.data.length === 0 ? (
        <p>Nothing of yours is kept from any recording.</p>
      ) : (
        <ul className="my-data-list" aria-label="Sessions in which you were recorded">
          {recorded.data.map((s) => (
            <RecordedCard key={s.transcript_id} session={s} />
          ))}
        </ul>
      )}
    </div>
  );
}
