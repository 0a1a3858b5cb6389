import { useQuery } from '@tanstack/react-query';
import { useCallback, useMemo } from 'react';
import { Link, useParams } from 'react-router-dom';
import { listGroups } from '../../api/lists.ts';
import { loadedSessions, useSessionPages } from '../../api/session-pages.ts';
import type { GroupSummaryItem } from '../../api/types.ts';
import { cacheTimes, queryKeys } from '../../app/query-client.ts';
import { CAMPAIGN_EXPORTS, ExportMenu } from '../../components/ExportMenu.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { useAuth } from '../auth/useAuth.ts';
import { CampaignSpotlight } from '../spotlight/CampaignSpotlight.tsx';
import { CampaignAsk } from './CampaignAsk.tsx';
import { CampaignSummary } from './CampaignSummary.tsx';
import { LlmCampaignSummary, useCampaignSummaryCheck } from './CampaignSummaryAi.tsx';
import { CampaignVocabulary } from './CampaignVocabulary.tsx';
import { CharacterMap } from './CharacterMap.tsx';
import { GroupHeader } from './GroupHeader.tsx';
import { SessionCards } from './SessionCards.tsx';
import { awaitingServer, findGroup, groupRouteId } from './session-data.ts';
import './group-dashboard.css';

function GroupNotFound() {
  return (
    <div className="page">
      <header className="page-header">
        <h1 className="page-title">Group not found</h1>
      </header>
      <p className="muted">This group does not exist, or it is not one of yours.</p>
      <p>
        <Link to="/" className="button button-secondary">
          Back to Dashboard
        </Link>
      </p>
    </div>
  );
}

/** Session cards per page of a campaign's list. */
const CARDS_PAGE = 24;

/** Pages are asked again while the server is still working on a shown session. */
const followServer = (sessions: Parameters<typeof awaitingServer>[0][]) =>
  sessions.some((session) => awaitingServer(session)) ? 1500 : false;

function GroupDashboard({ group }: { group: GroupSummaryItem }) {
  const { isAdmin } = useAuth();
  const notice = useCampaignSummaryCheck(group);
  const routeId = groupRouteId(group);
  // The group's sessions a page at a time; the next as the user reaches the end of the cards.
  // Automatic summaries (and transcriptions) finish in the background: the cards follow
  // until they are done, a new session's included, whose summary has not started yet.
  const filter = useMemo(() => ({ group_id: group.id, limit: CARDS_PAGE }), [group.id]);
  const pages = useSessionPages(filter, { refetchInterval: followServer });
  const { fetchNextPage } = pages;
  const loadMore = useCallback(() => void fetchNextPage(), [fetchNextPage]);
  const sessions = loadedSessions(pages.data);

  return (
    <div className="page group-dashboard">
      <GroupHeader group={group} sessionCount={group.session_ids?.length ?? sessions.length} />
      <ExportMenu
        basePath={`/groups/${encodeURIComponent(routeId)}/export`}
        choices={CAMPAIGN_EXPORTS}
        label="Export campaign"
      />

      <CampaignSummary group={group} notice={notice} />

      <CampaignAsk group={group} />

      <CampaignVocabulary group={group} />
      <CharacterMap group={group} />
      <CampaignSpotlight groupId={group.id} />

      <section className="card group-section">
        <h2 className="card-title">Campaign Codex</h2>
        <p className="muted">
          The people, places, items, factions and open threads of every session, each linked to the moments
          that name them; a recap per character and "previously on" to share with players.
        </p>
        <Link to={`/groups/${routeId}/codex`} className="button button-secondary">
          Open Codex
        </Link>
      </section>

      <section className="card group-section">
        <h2 className="card-title">Campaign Planning</h2>
        <p className="muted">Plan the next session with an AI assistant beside a shared planning document.</p>
        <Link to={`/groups/${routeId}/planning`} className="button button-primary">
          Enter Planning Mode
        </Link>
      </section>

      {isAdmin ? <LlmCampaignSummary group={group} /> : null}

      {pages.isPending ? (
        <div className="content-center">
          <Spinner label="Loading sessions..." />
        </div>
      ) : (
        <SessionCards
          sessions={sessions}
          hasMore={pages.hasNextPage}
          loadingMore={pages.isFetchingNextPage}
          onLoadMore={loadMore}
        />
      )}
    </div>
  );
}

export function GroupDashboardPage() {
  const { groupId } = useParams();
  const groups = useQuery({ queryKey: queryKeys.groups, queryFn: listGroups, ...cacheTimes.groupList });

  if (groups.isPending) {
    return (
      <div className="content-center">
        <Spinner label="Loading group..." />
      </div>
    );
  }
  const group = findGroup(groups.data, groupId);
  if (!group) return <GroupNotFound />;
  // Keyed by group: moving to another group starts with the name and summary editors closed.
  return <GroupDashboard key={group.id} group={group} />;
}
