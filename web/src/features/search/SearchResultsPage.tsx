import { useInfiniteQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router-dom';
import { errorDetail } from '../../api/http.ts';
import { searchSessions, type SearchHit } from '../../api/search.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { formatSessionDate } from '../dashboard/dashboard-data.ts';
import { hitPlace, SearchHeadline } from './SearchHeadline.tsx';
import './search.css';

interface SessionHits {
  id: string;
  name: string;
  timestamp: string;
  hits: SearchHit[];
}

/** Hits grouped by session, the sessions in the order of their best hit. */
function groupBySession(hits: SearchHit[]): SessionHits[] {
  const sessions = new Map<string, SessionHits>();
  for (const hit of hits) {
    let session = sessions.get(hit.transcript_id);
    if (!session) {
      session = {
        id: hit.transcript_id,
        name: hit.transcript_name,
        timestamp: hit.session_timestamp,
        hits: [],
      };
      sessions.set(hit.transcript_id, session);
    }
    session.hits.push(hit);
  }
  return [...sessions.values()];
}

function SessionResult({ session }: { session: SessionHits }) {
  return (
    <li className="card search-session">
      <h2 className="search-session-title">
        <Link to={`/sessions/${session.id}`}>{session.name}</Link>
      </h2>
      <p className="muted small">{formatSessionDate(session.timestamp)}</p>
      <ul className="search-hits">
        {session.hits.map((hit, index) => (
          <li key={index}>
            <Link to={hit.link} className="search-hit">
              <span className="search-hit-place">{hitPlace(hit)}</span>
              <SearchHeadline hit={hit} />
            </Link>
          </li>
        ))}
      </ul>
    </li>
  );
}

/** /search?q=&group=: what the user's sessions say, ranked, grouped by session, a page at a time. */
export function SearchResultsPage() {
  const [params, setParams] = useSearchParams();
  const q = params.get('q')?.trim() ?? '';
  const group = params.get('group') || undefined;
  const [draft, setDraft] = useState(q);
  const results = useInfiniteQuery({
    queryKey: ['search', q, group ?? ''],
    queryFn: ({ pageParam, signal }) =>
      searchSessions(q, { group, signal, ...(pageParam ? { after: pageParam } : {}) }),
    initialPageParam: '',
    getNextPageParam: (last) => last.next ?? undefined,
    enabled: q.length > 0,
  });
  const hits = results.data?.pages.flatMap((page) => page.hits) ?? [];
  const sessions = groupBySession(hits);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const next = new URLSearchParams(params);
    next.set('q', draft.trim());
    setParams(next);
  };

  return (
    <div className="page search-page">
      <header className="page-header">
        <h1 className="page-title">Search</h1>
      </header>
      <form className="search-form" role="search" onSubmit={submit}>
        <label className="visually-hidden" htmlFor="search-page-input">
          Search every session
        </label>
        <input
          id="search-page-input"
          className="text-input"
          type="search"
          placeholder="Search names, summaries, notes and every line..."
          value={draft}
          onChange={(event) => setDraft(event.target.value)}
        />
        <button type="submit" className="button button-primary" disabled={!draft.trim()}>
          Search
        </button>
      </form>
      {group ? (
        <p className="muted small">
          In one group only. <Link to={`/search?q=${encodeURIComponent(q)}`}>Search every session</Link>
        </p>
      ) : null}
      {!q ? (
        <p className="muted">Type a word, a "quoted phrase", or -a word to leave out.</p>
      ) : results.isPending ? (
        <Spinner label="Searching..." />
      ) : results.isError ? (
        <p className="search-error" role="alert">
          {errorDetail(results.error, 'Search failed')}
        </p>
      ) : sessions.length === 0 ? (
        <p className="muted">No results for “{q}”.</p>
      ) : (
        <>
          <p className="muted small" aria-live="polite">
            {hits.length} {hits.length === 1 ? 'result' : 'results'} in {sessions.length}{' '}
            {sessions.length === 1 ? 'session' : 'sessions'}
            {results.hasNextPage ? ' so far' : ''}
          </p>
          <ul className="search-sessions">
            {sessions.map((session) => (
              <SessionResult key={session.id} session={session} />
            ))}
          </ul>
          {results.hasNextPage ? (
            <button
              type="button"
              className="button button-secondary"
              disabled={results.isFetchingNextPage}
              onClick={() => void results.fetchNextPage()}
            >
              {results.isFetchingNextPage ? 'Loading...' : 'More results'}
            </button>
          ) : null}
        </>
      )}
    </div>
  );
}
