import { PLANNING_SUGGESTIONS_MESSAGE } from '@chronicler/contracts';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { listGroups } from '../../api/lists.ts';
import type { GroupSummaryItem } from '../../api/types.ts';
import { cacheTimes, queryKeys } from '../../app/query-client.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { useMediaQuery } from '../../lib/use-media-query.ts';
import { findGroup, groupRouteId } from '../groups/session-data.ts';
import { PlanningChat } from './PlanningChat.tsx';
import { PlanningEditorPanel } from './PlanningEditorPanel.tsx';
import { PlanningHeader } from './PlanningHeader.tsx';
import { PrepChecklist } from './prep/PrepChecklist.tsx';
import { usePlanningChat } from './use-planning-chat.ts';
import { usePlanningDocument } from './use-planning-document.ts';
import './planning.css';

/** The planning workspace stacks its panels, chat full width, at this width and below. */
const NARROW_QUERY = '(max-width: 767px)';

function GroupNotFound() {
  const navigate = useNavigate();
  return (
    <div className="page">
      <header className="page-header">
        <h1 className="page-title">Group not found</h1>
      </header>
      <p className="muted">The selected group for planning could not be found.</p>
      <p>
        <button type="button" className="button button-secondary" onClick={() => navigate('/')}>
          Back to Groups
        </button>
      </p>
    </div>
  );
}

function PlanningWorkspace({ group }: { group: GroupSummaryItem }) {
  const routeId = groupRouteId(group);
  const narrow = useMediaQuery(NARROW_QUERY);
  const { editor, editorRef, initialDocument } = usePlanningDocument(routeId);
  const [docOpen, setDocOpen] = useState(
    () => initialDocument.trim() !== '' && !window.matchMedia(NARROW_QUERY).matches,
  );
  const chat = usePlanningChat(routeId, editorRef, () => setDocOpen(true));
  const [input, setInput] = useState('');

  const send = (text: string) => {
    if (chat.send(text) && text === input) setInput('');
  };

  const bodyClass = ['planning-body', docOpen ? 'has-doc' : '', narrow ? 'is-narrow' : '']
    .filter(Boolean)
    .join(' ');

  return (
    <div className="planning-page">
      <PlanningHeader
        groupRouteId={routeId}
        groupName={group.name}
        connected={chat.connected}
        waiting={chat.waiting}
        docOpen={docOpen}
        onSuggestions={() => send(PLANNING_SUGGESTIONS_MESSAGE)}
        onOpenDoc={() => setDocOpen(true)}
      />

      <div className={bodyClass}>
        <PlanningChat
          messages={chat.messages}
          waiting={chat.waiting}
          input={input}
          onInputChange={setInput}
          onSend={send}
        />

        <PlanningEditorPanel editor={editor} open={docOpen} onClose={() => setDocOpen(false)}>
          <PrepChecklist groupId={routeId} />
        </PlanningEditorPanel>
      </div>
    </div>
  );
}

export function PlanningPage() {
  const { groupId } = useParams();
  const groups = useQuery({ queryKey: queryKeys.groups, queryFn: listGroups, ...cacheTimes.groupList });
  const group = findGroup(groups.data, groupId);
  const missing = !groups.isPending && !group;
  useEffect(() => {
    if (missing) console.error('Planning: unknown group', groupId);
  }, [missing, groupId]);

  if (groups.isPending) {
    return (
      <div className="content-center">
        <Spinner label="Loading group..." />
      </div>
    );
  }
  if (!group) return <GroupNotFound />;
  // Keyed by group: another group starts with its own chat, socket and document.
  return <PlanningWorkspace key={group.id} group={group} />;
}
