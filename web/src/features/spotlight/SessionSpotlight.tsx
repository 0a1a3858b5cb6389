import { sessionSpotlight } from '@chronicler/contracts';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { getSessionSpotlight } from '../../api/spotlight.ts';
import { getSpeakers } from '../../api/transcript-tools.ts';
import type { TranscriptDetail } from '../../api/types.ts';
import { toolKeys } from '../transcripts/tools/use-transcript-tools.ts';
import type { ViewLine } from '../transcripts/transcript-view.ts';
import { contentOfLines, namesOf } from './spotlight-view.ts';
import { SpotlightPanel } from './SpotlightPanel.tsx';

function Section({ children, live }: { children: React.ReactNode; live: boolean }) {
  return (
    <section className="card viewer-spotlight" aria-labelledby="viewer-spotlight-title">
      <h2 id="viewer-spotlight-title" className="card-title">
        {live ? 'Spotlight so far' : 'Spotlight'}
      </h2>
      {children}
    </section>
  );
}

/**
 * While a session records: the running shares, counted in the browser from the live lines
 * the viewer already shows (by the server's rules, contracts/spotlight.ts), so they move with
 * every final line.
 */
function LiveSpotlight({ session, lines }: { session: TranscriptDetail; lines: readonly ViewLine[] }) {
  const speakers = useQuery({
    queryKey: toolKeys.speakers(session.id),
    queryFn: () => getSpeakers(session.id),
  });
  const names = useMemo(() => namesOf(speakers.data), [speakers.data]);
  const spotlight = useMemo(
    () =>
      sessionSpotlight({
        transcript_id: session.id,
        name: session.name,
        session_timestamp: session.session_timestamp,
        content: contentOfLines(lines),
        names,
      }),
    [session.id, session.name, session.session_timestamp, lines, names],
  );
  if (spotlight.total_lines === 0) return null;
  return (
    <Section live>
      <SpotlightPanel spotlight={spotlight} live />
    </Section>
  );
}

/** An ended (or pasted) session's spotlight, as GET /transcripts/{id}/spotlight counts it. */
function StoredSpotlight({ session }: { session: TranscriptDetail }) {
  const query = useQuery({
    queryKey: [...toolKeys.spotlight(session.id), session.content.length],
    queryFn: () => getSessionSpotlight(session.id),
  });
  if (!query.data || query.data.total_lines === 0) {
    return query.isError ? (
      <Section live={false}>
        <p className="notice notice-error">Failed to load the spotlight.</p>
      </Section>
    ) : null;
  }
  return (
    <Section live={false}>
      <SpotlightPanel spotlight={query.data} />
    </Section>
  );
}

/** The session page's spotlight: running while it records, stored once it ended. */
export function SessionSpotlightCard({
  session,
  active,
  lines,
}: {
  session: TranscriptDetail;
  active: boolean;
  lines: readonly ViewLine[];
}) {
  return active ? <LiveSpotlight session={session} lines={lines} /> : <StoredSpotlight session={session} />;
}
