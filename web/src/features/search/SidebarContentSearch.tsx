import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import { Link } from 'react-router-dom';
import { searchSessions } from '../../api/search.ts';
import { hitPlace, SearchHeadline } from './SearchHeadline.tsx';
import './search.css';

/** How many content hits the sidebar shows under its name matches. */
const SIDEBAR_HITS = 5;
/** Typing pauses this long before the server is asked. */
const DEBOUNCE_MS = 250;

/** Where the full results of the sidebar's search are: /search?q= (&group= inside a group). */
export function searchPath(q: string, group?: string): string {
  const params = new URLSearchParams({ q: q.trim() });
  if (group) params.set('group', group);
  return `/search?${params.toString()}`;
}

/**
 * The sidebar's search box searches what the sessions say too: below the name matches, the
 * best few hits in names, summaries, notes and lines (of the open group's sessions only in
 * the group view), each linking to its moment, and a link to every result.
 */
export function SidebarContentSearch({ query, group }: { query: string; group?: string }) {
  const [q, setQ] = useState(query.trim());
  const titleId = useId();
  useEffect(() => {
    const timer = setTimeout(() => setQ(query.trim()), DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [query]);
  const results = useQuery({
    queryKey: ['search', 'sidebar', q, group ?? ''],
    queryFn: ({ signal }) => searchSessions(q, { group, limit: SIDEBAR_HITS, signal }),
    enabled: q.length > 0,
  });
  if (!q) return null;
  const hits = results.data?.hits ?? [];
  return (
    <section aria-labelledby={titleId} className="browser-content-hits">
      <h3 id={titleId} className="browser-section-title">
        In transcripts
      </h3>
      {results.isPending ? (
        <p className="browser-empty">Searching...</p>
      ) : results.isError ? (
        <p className="browser-empty">Search failed</p>
      ) : hits.length === 0 ? (
        <p className="browser-empty">Nothing said matches.</p>
      ) : (
        <ul className="browser-list">
          {hits.map((hit, index) => (
            <li key={index}>
              <Link to={hit.link} className="browser-content-hit">
                <span className="browser-content-hit-name">
                  {hitPlace(hit)} · {hit.transcript_name}
                </span>
                <SearchHeadline hit={hit} />
              </Link>
            </li>
          ))}
        </ul>
      )}
      <Link to={searchPath(q, group)} className="browser-content-all">
        All results for “{q}”{group ? ' in this group' : ''}
      </Link>
      {group ? (
        // The group view searches its own sessions; every campaign is one click away.
        <Link to={searchPath(q)} className="browser-content-all">
          Search every session
        </Link>
      ) : null}
    </section>
  );
}
