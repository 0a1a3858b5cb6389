import { defaultRangeExtractor, useVirtualizer, type Range } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { Link } from 'react-router-dom';
import type { TranscriptSummaryItem } from '../../api/types.ts';
import { DocumentIcon } from '../../components/icons.tsx';
import { SessionBadges } from '../groups/SessionBadges.tsx';
import { formatSessionTimestamp } from '../groups/session-data.ts';

/** The nearest ancestor that scrolls (the sidebar, or the drawer on a phone). */
function scrollParent(element: HTMLElement | null): HTMLElement | null {
  for (let node = element?.parentElement; node; node = node.parentElement) {
    const { overflowY } = getComputedStyle(node);
    if (overflowY === 'auto' || overflowY === 'scroll') return node;
  }
  return null;
}

/**
 * Where the list starts in its scroller's content, followed as what sits above it (the
 * groups, the search) changes height: the virtualiser counts its items from there.
 */
function useOffsetIn(scroller: HTMLElement | null, list: HTMLElement | null): number {
  const [offset, setOffset] = useState(0);
  useLayoutEffect(() => {
    if (!scroller || !list) return;
    const measure = () => {
      const top =
        list.getBoundingClientRect().top - scroller.getBoundingClientRect().top + scroller.scrollTop;
      setOffset((previous) => (Math.abs(previous - top) < 1 ? previous : top));
    };
    measure();
    const observer = new ResizeObserver(measure);
    for (const child of Array.from(scroller.children)) observer.observe(child);
    return () => observer.disconnect();
  }, [scroller, list]);
  return offset;
}

function SessionLink({ session, current }: { session: TranscriptSummaryItem; current: boolean }) {
  const preview = session.preview?.trim();
  return (
    <Link
      to={`/sessions/${session.id}`}
      className={current ? 'browser-item is-current' : 'browser-item'}
      aria-current={current ? 'page' : undefined}
    >
      <DocumentIcon />
      <span className="browser-item-text">
        <span className="browser-item-name">{session.name}</span>
        <SessionBadges session={session} />
        <span className="browser-item-meta">{formatSessionTimestamp(session.session_timestamp)}</span>
        <span className={preview ? 'browser-item-preview' : 'browser-item-preview is-empty'}>
          {preview || 'No preview available'}
        </span>
      </span>
    </Link>
  );
}

/** A list of one session: the open one, when the loaded pages do not hold it yet. */
export function PinnedSession({ session, label }: { session: TranscriptSummaryItem; label?: string }) {
  return (
    <ul className="browser-list" aria-label={label}>
      <li>
        <SessionLink session={session} current />
      </li>
    </ul>
  );
}

/** How many sessions from the end of the loaded ones the next page is asked for. */
const LOAD_AHEAD = 10;

/**
 * The sidebar's list of sessions, virtualised: only the rows in (and near) the sidebar's
 * visible part are in the page, plus the open session's wherever it is, so a long list costs
 * the nodes of a screenful. Scrolling near the end of the loaded sessions asks for the next
 * page (`onLoadMore`); the button below does the same for a keyboard or a screen reader.
 */
export function SessionList({
  sessions,
  openSessionId,
  label,
  hasMore,
  loadingMore,
  onLoadMore,
}: {
  sessions: TranscriptSummaryItem[];
  openSessionId?: string;
  label?: string;
  hasMore: boolean;
  loadingMore: boolean;
  onLoadMore: () => void;
}) {
  const listRef = useRef<HTMLUListElement>(null);
  const [scroller, setScroller] = useState<HTMLElement | null>(null);
  useLayoutEffect(() => setScroller(scrollParent(listRef.current)), []);
  const offset = useOffsetIn(scroller, listRef.current);
  const openIndex = openSessionId ? sessions.findIndex((session) => session.id === openSessionId) : -1;
  const rangeExtractor = useCallback(
    (range: Range) => {
      const indexes = defaultRangeExtractor(range);
      if (openIndex < 0 || indexes.includes(openIndex)) return indexes;
      return [...indexes, openIndex].sort((a, b) => a - b);
    },
    [openIndex],
  );
  const virtualizer = useVirtualizer({
    count: sessions.length,
    getScrollElement: () => scroller,
    estimateSize: () => 84,
    gap: 2,
    overscan: 6,
    scrollMargin: offset,
    getItemKey: (index) => sessions[index]!.id,
    rangeExtractor,
    initialRect: { width: 280, height: 800 },
  });
  const rows = virtualizer.getVirtualItems();
  const lastShown = rows.at(-1)?.index ?? -1;
  useEffect(() => {
    if (hasMore && !loadingMore && lastShown >= sessions.length - LOAD_AHEAD) onLoadMore();
  }, [hasMore, loadingMore, lastShown, sessions.length, onLoadMore]);

  return (
    <>
      <ul
        ref={listRef}
        className="browser-list is-virtual"
        aria-label={label}
        style={{ height: virtualizer.getTotalSize() }}
      >
        {rows.map((row) => {
          const session = sessions[row.index]!;
          return (
            <li
              key={row.key}
              ref={virtualizer.measureElement}
              data-index={row.index}
              style={{ transform: `translateY(${row.start - offset}px)` }}
            >
              <SessionLink session={session} current={session.id === openSessionId} />
            </li>
          );
        })}
      </ul>
      {hasMore && (
        <button type="button" className="nav-link browser-more" onClick={onLoadMore} disabled={loadingMore}>
          {loadingMore ? 'Loading more transcripts...' : 'Load more transcripts'}
        </button>
      )}
    </>
  );
}
