import { formatOffset, type PrepItem, type PrepUpdate } from '@chronicler/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { EditorContent, useEditor, type Editor } from '@tiptap/react';
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import { listGroupTranscripts } from '../../../api/lists.ts';
import { carryPrep, createPrepItem, deletePrepItem, getPrep, updatePrepItem } from '../../../api/prep.ts';
import type { TranscriptSummaryItem } from '../../../api/types.ts';
import { queryKeys } from '../../../app/query-client.ts';
import { useLivePrep } from '../../../realtime/live-socket.ts';
import { isActive } from '../../groups/session-data.ts';
import { applyPrepUpdate, prepKey } from './prep-cache.ts';
import './prep.css';
import {
  appendRows,
  checklistContent,
  checklistRows,
  prepExtensions,
  REMOTE_META,
  setRowAttrs,
} from './prep-editor.ts';

/** Edits are sent this long after the last keystroke or tick. */
const SYNC_MS = 800;
/** How often the page looks for a live session of the campaign to start. */
const SESSIONS_POLL_MS = 5000;
/** Sessions per page of the campaign's list: the newest are the ones asked after. */
const SESSIONS_PAGE = 10;
const isEnded = (session: TranscriptSummaryItem): boolean => !isActive(session);

const momentHref = (item: PrepItem) =>
  item.moment ? `/sessions/${item.moment.transcript_id}#t=${formatOffset(item.moment.seconds)}` : '';

function Moment({ item }: { item: PrepItem }) {
  if (!item.moment) return null;
  return (
    <li className="prep-moment" data-prep-id={item.id}>
      <span className="prep-moment-text">{item.text}</span>{' '}
      <Link to={momentHref(item)} className="prep-moment-link" title={item.moment.quote}>
        [{formatOffset(item.moment.seconds)}]
      </Link>{' '}
      <span className="muted">{item.moment.speaker}</span>
    </li>
  );
}

/**
 * Sends what the editor holds that the server does not: new lines, new texts, ticks and
 * unticks, removed items. Texts left empty wait (a line being retyped is not removed).
 */
async function syncChecklist(editor: Editor, groupId: string, stored: readonly PrepItem[]): Promise<boolean> {
  const seen = new Set<string>();
  // A pasted copy of a stored line is a new item: only the first line keeps the stored id.
  const rows = checklistRows(editor).map((r) => {
    if (!r.prepId) return r;
    if (seen.has(r.prepId)) return { ...r, prepId: null };
    seen.add(r.prepId);
    return r;
  });
  const byId = new Map(stored.map((i) => [i.id, i]));
  let changed = false;
  for (const row of rows) {
    if (!row.prepId) {
      if (!row.text) continue;
      const created = await createPrepItem(groupId, row.text);
      if (row.checked) await updatePrepItem(groupId, created.id, { done: true });
      // Its place may have moved while the request ran: find the row again by its text, or by
      // the text it began with if the user went on typing in it (the next sync sends the rest;
      // left without its id, the row would be saved a second time and the item added twice).
      const unsaved = checklistRows(editor).filter(
        (r, i, all) => !r.prepId || all.findIndex((o) => o.prepId === r.prepId) !== i,
      );
      const again =
        unsaved.find((r) => r.text === row.text) ?? unsaved.find((r) => r.text.startsWith(row.text));
      if (again) setRowAttrs(editor, again.pos, { prepId: created.id });
      changed = true;
      continue;
    }
    const item = byId.get(row.prepId);
    if (!item) continue;
    const change: { text?: string; done?: boolean } = {};
    if (row.text && row.text !== item.text) change.text = row.text;
    if (row.checked !== item.done) change.done = row.checked;
    if (change.text !== undefined || change.done !== undefined) {
      await updatePrepItem(groupId, item.id, change);
      changed = true;
    }
  }
  const kept = new Set(rows.map((r) => r.prepId));
  for (const item of stored) {
    if (!kept.has(item.id)) {
      await deletePrepItem(groupId, item.id);
      changed = true;
    }
  }
  return changed;
}

// Memoised: the session list's polls re-render the checklist, never the editor a user types in.
const ChecklistEditor = memo(function ChecklistEditor({
  groupId,
  plan,
}: {
  groupId: string;
  plan: readonly PrepItem[];
}) {
  const queryClient = useQueryClient();
  const planRef = useRef(plan);
  planRef.current = plan;
  const timer = useRef<number | undefined>(undefined);
  const running = useRef<Promise<void>>(Promise.resolve());
  const [error, setError] = useState('');

  const sync = useCallback(
    (editor: Editor) => {
      running.current = running.current.then(async () => {
        try {
          if (await syncChecklist(editor, groupId, planRef.current)) {
            await queryClient.invalidateQueries({ queryKey: prepKey(groupId) });
          }
          setError('');
        } catch (err) {
          setError(err instanceof Error ? err.message : 'Failed to save the prep checklist');
        }
      });
    },
    [groupId, queryClient],
  );

  const editor = useEditor({
    extensions: prepExtensions,
    content: checklistContent(plan),
    editorProps: { attributes: { 'aria-label': 'Prepared items' } },
    onUpdate: ({ editor: e, transaction }) => {
      if (transaction.getMeta(REMOTE_META)) return;
      window.clearTimeout(timer.current);
      timer.current = window.setTimeout(() => {
        timer.current = undefined;
        sync(e);
      }, SYNC_MS);
    },
  });

  // The items the editor has held: one of the plan it never held was added elsewhere (the
  // planning AI, another tab) and joins the checklist; one it held and lost was deleted here.
  const known = useRef(new Set(plan.map((i) => i.id)));

  // A tick from the server (live, or another tab) shows on its line; the line's text stays as typed.
  useEffect(() => {
    if (!editor) return;
    const held = new Set(checklistRows(editor).map((r) => r.prepId));
    const added = plan.filter((i) => !known.current.has(i.id) && !held.has(i.id));
    for (const item of plan) known.current.add(item.id);
    appendRows(editor, added);
    const done = new Map(plan.map((i) => [i.id, i.done]));
    for (const row of checklistRows(editor)) {
      const want = row.prepId ? done.get(row.prepId) : undefined;
      if (want !== undefined && want !== row.checked && timer.current === undefined) {
        setRowAttrs(editor, row.pos, { checked: want });
      }
    }
  }, [editor, plan]);

  useEffect(
    () => () => {
      window.clearTimeout(timer.current);
    },
    [],
  );

  return (
    <>
      <EditorContent editor={editor} className="prep-editor" />
      {error ? (
        <p className="prep-error" role="alert">
          {error}
        </p>
      ) : null}
    </>
  );
});

/** After a session: what came up, what did not, and carrying the rest into the next plan. */
function PlannedAndHappened(props: {
  groupId: string;
  session: TranscriptSummaryItem;
  items: readonly PrepItem[];
}) {
  const { groupId, session, items } = props;
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState(false);
  const cameUp = items.filter((i) => i.moment?.transcript_id === session.id);
  const carried = items.some((i) => i.carried_from.includes(session.id) || i.closed_in === session.id);
  const missed = carried
    ? items.filter((i) => i.carried_from.includes(session.id))
    : items.filter((i) => i.closed_in === null && !i.done);
  if (cameUp.length === 0 && missed.length === 0) return null;
  const carry = async () => {
    setBusy(true);
    try {
      queryClient.setQueryData(prepKey(groupId), await carryPrep(groupId, session.id));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="prep-review" aria-labelledby="prep-review-title">
      <h3 id="prep-review-title" className="prep-heading">
        Planned and what happened
      </h3>
      <p className="muted prep-review-session">{session.name}</p>
      <h4 className="prep-subheading">Came up ({cameUp.length})</h4>
      {cameUp.length ? (
        <ul className="prep-moments">
          {cameUp.map((i) => (
            <Moment key={i.id} item={i} />
          ))}
        </ul>
      ) : (
        <p className="muted">Nothing prepared came up.</p>
      )}
      <h4 className="prep-subheading">Did not come up ({missed.length})</h4>
      {missed.length ? (
        <ul className="prep-missed">
          {missed.map((i) => (
            <li key={i.id}>{i.text}</li>
          ))}
        </ul>
      ) : (
        <p className="muted">Everything prepared came up.</p>
      )}
      {carried ? (
        <p className="prep-carried">Carried into the next plan: {missed.length} item(s).</p>
      ) : (
        <button type="button" className="button" disabled={busy} onClick={() => void carry()}>
          Carry {missed.length} into the next plan
        </button>
      )}
    </section>
  );
}

/**
 * The planning document's prep checklist: the next session's prepared items as tasks the game
 * master edits and ticks. While a session of the campaign records, the items said in it tick
 * themselves with their moment (prep_update on the session's live socket); after it, the
 * 'Planned and what happened' view carries the rest into the next plan.
 */
export function PrepChecklist({ groupId }: { groupId: string }) {
  const queryClient = useQueryClient();
  const prep = useQuery({ queryKey: prepKey(groupId), queryFn: () => getPrep(groupId) });
  // The campaign's newest sessions, newest first, up to its last ended one: enough to find the
  // live session and the last ended one, whatever the size of the library.
  const sessions = useQuery({
    queryKey: queryKeys.groupTranscripts(groupId, 'latest'),
    queryFn: () =>
      listGroupTranscripts(groupId, { limit: SESSIONS_PAGE, enough: (loaded) => loaded.some(isEnded) }),
    refetchInterval: SESSIONS_POLL_MS,
  });
  const ofGroup = sessions.data ?? [];
  const live = ofGroup.find(isActive) ?? null;
  const lastEnded = ofGroup.find(isEnded) ?? null;

  const onPrep = useCallback((update: PrepUpdate) => applyPrepUpdate(queryClient, update), [queryClient]);
  const onEnd = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.transcripts });
    void queryClient.invalidateQueries({ queryKey: prepKey(groupId) });
  }, [groupId, queryClient]);
  const status = useLivePrep(live?.id ?? null, onPrep, onEnd);
  const plan = useMemo(() => (prep.data?.items ?? []).filter((i) => i.closed_in === null), [prep.data]);

  if (prep.isPending) return <p className="muted">Loading the prep checklist...</p>;
  if (prep.isError) return <p className="prep-error">Failed to load the prep checklist</p>;
  const items = prep.data.items;
  const cameUpLive = live ? plan.filter((i) => i.moment?.transcript_id === live.id) : [];

  return (
    <section className="prep" aria-labelledby="prep-title">
      <h3 id="prep-title" className="prep-heading">
        Prep for the next session
      </h3>
      {live ? (
        <p className={`prep-live ${status === 'live' ? 'is-live' : ''}`}>
          {status === 'live' ? 'Live' : 'Connecting...'}: {live.name}. Items said are ticked as they come up.
        </p>
      ) : null}
      {/* A new editor once a plan is closed: what came up leaves it. */}
      <ChecklistEditor key={items.length - plan.length} groupId={groupId} plan={plan} />
      <p className="muted prep-hint">One item per line: beats, secrets, clues, NPCs to introduce.</p>
      {cameUpLive.length ? (
        <>
          <h4 className="prep-subheading">Came up so far</h4>
          <ul className="prep-moments">
            {cameUpLive.map((i) => (
              <Moment key={i.id} item={i} />
            ))}
          </ul>
        </>
      ) : null}
      {!live && lastEnded ? <PlannedAndHappened groupId={groupId} session={lastEnded} items={items} /> : null}
    </section>
  );
}

/**
 * The live viewer's view of the campaign's prep: the next plan's items, those this session has
 * ticked with their moment (kept current by the viewer's own socket, see applyPrepUpdate).
 */
export function LivePrepCard({ groupId, transcriptId }: { groupId: string; transcriptId: string }) {
  const prep = useQuery({ queryKey: prepKey(groupId), queryFn: () => getPrep(groupId) });
  const plan = (prep.data?.items ?? []).filter((i) => i.closed_in === null);
  if (plan.length === 0) return null;
  const cameUp = plan.filter((i) => i.moment?.transcript_id === transcriptId);
  return (
    <section className="card prep-live-card" aria-labelledby="prep-live-title">
      <h2 id="prep-live-title" className="card-title">
        Prep so far ({cameUp.length} of {plan.length})
      </h2>
      <ul className="prep-live-list">
        {plan.map((i) => (
          <li key={i.id} data-prep-id={i.id} className={i.done ? 'is-done' : ''}>
            <input type="checkbox" checked={i.done} readOnly aria-label={i.text} tabIndex={-1} />{' '}
            <span>{i.text}</span>{' '}
            {i.moment?.transcript_id === transcriptId ? (
              <Link to={momentHref(i)} className="prep-moment-link" title={i.moment.quote}>
                [{formatOffset(i.moment.seconds)}]
              </Link>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
