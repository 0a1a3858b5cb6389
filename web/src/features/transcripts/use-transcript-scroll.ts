import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useLayoutEffect, useRef, useState } from 'react';
import { firstLineAtOrAfter, type ViewLine } from './transcript-view.ts';
import { revealRowInWindow } from './tools/reveal-row.ts';
import { momentIndex, type Moment } from '../search/moment.ts';

/**
 * Up to this many lines every row is rendered (the browser's own find and a whole-page copy
 * keep working, and it costs little); above it only the rows near the viewport are, so a
 * four-hour session of thousands of lines stays quick to open and to append to.
 */
const FULL_RENDER_MAX = 500;
const OVERSCAN = 12;
/** Within this distance of the end the reader counts as at the bottom and follows new lines. */
const FOLLOW_SLACK_PX = 48;
const ESTIMATED_ROW_PX = 34;

/**
 * The transcript box's scrolling: the virtualised rows, following new lines while the reader
 * is at the bottom, showing a row (find, jump, a linked moment) and keeping the reading
 * position across a speaker filter change.
 */
export function useTranscriptScroll({
  rows,
  live,
  moment,
  activeFilter,
}: {
  rows: ViewLine[];
  /** An active session: opens at the newest line and follows new ones while the reader is there. */
  live: boolean;
  moment: Moment | null;
  /** The speakers shown: a change keeps the reader at the same moment of the session. */
  activeFilter: ReadonlySet<string>;
}) {
  const [targetKey, setTargetKey] = useState<string | null>(null);
  const [atBottom, setAtBottom] = useState(true);
  const scrollRef = useRef<HTMLDivElement>(null);
  // Live sessions open at the newest line and follow; a reader who scrolls up stops following.
  const followRef = useRef(live);

  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATED_ROW_PX,
    overscan: rows.length <= FULL_RENDER_MAX ? rows.length : OVERSCAN,
    getItemKey: (index) => rows[index]?.key ?? index,
    // The box is not measured before the first paint: assume a window's height, so the first
    // frame already shows lines rather than an empty box.
    initialRect: { width: 0, height: window.innerHeight },
  });

  const scrollToRow = useCallback(
    (index: number, align: 'start' | 'center' | 'end') => {
      if (index < 0 || index >= rows.length) return;
      virtualizer.scrollToIndex(index, { align });
    },
    [virtualizer, rows.length],
  );

  // Find and Jump: the hit in the box, and the box in the window.
  const revealRow = useCallback(
    (index: number, align: 'start' | 'center') => {
      scrollToRow(index, align);
      revealRowInWindow(scrollRef.current, index);
    },
    [scrollToRow],
  );

  /** Shows a row and stops following new lines. */
  const showRow = useCallback(
    (index: number, align: 'start' | 'center') => {
      followRef.current = false;
      revealRow(index, align);
    },
    [revealRow],
  );

  /** Shows a row highlighted as the one asked for (a time, a linked moment). */
  const showTarget = useCallback(
    (index: number, align: 'start' | 'center') => {
      followRef.current = false;
      setTargetKey(rows[index]!.key);
      revealRow(index, align);
    },
    [rows, revealRow],
  );

  const followLatest = useCallback(() => {
    followRef.current = true;
    setAtBottom(true);
    scrollToRow(rows.length - 1, 'end');
  }, [scrollToRow, rows.length]);

  // New lines (or a growing interim) while the reader is at the bottom: stay at the bottom.
  // Elsewhere the rows above the viewport do not change, so the reading position holds.
  useLayoutEffect(() => {
    if (followRef.current && rows.length > 0) scrollToRow(rows.length - 1, 'end');
  }, [rows, scrollToRow]);

  // A link to a moment: once its line has loaded, bring the box into the window and the line
  // into the box, highlighted; later lines (live) leave the reader where they are.
  const shownMomentRef = useRef<Moment | null>(null);
  useLayoutEffect(() => {
    if (!moment || shownMomentRef.current === moment) return;
    const index = momentIndex(rows, moment);
    if (index === -1) return;
    shownMomentRef.current = moment;
    showTarget(index, 'center');
  }, [moment, rows, showTarget]);

  const onScroll = () => {
    const box = scrollRef.current;
    if (!box) return;
    const bottom = box.scrollHeight - box.scrollTop - box.clientHeight <= FOLLOW_SLACK_PX;
    followRef.current = bottom;
    setAtBottom(bottom);
  };

  // A filter change keeps the reader at the same moment of the session: the first line shown
  // at or after the time of the line that was at the top of the box.
  const anchorRef = useRef<number | null>(null);
  /** Call before the filter changes: notes the time of the line at the top of the box. */
  const rememberAnchor = () => {
    const box = scrollRef.current;
    if (!box || followRef.current) return;
    const top = virtualizer.getVirtualItems().find((item) => item.end > box.scrollTop);
    anchorRef.current = top ? (rows[top.index]?.seconds ?? null) : null;
  };
  useLayoutEffect(() => {
    const seconds = anchorRef.current;
    anchorRef.current = null;
    if (seconds === null || followRef.current) return;
    const index = firstLineAtOrAfter(rows, seconds);
    if (index !== -1) scrollToRow(index, 'start');
  }, [activeFilter, rows, scrollToRow]);

  return {
    scrollRef,
    virtualizer,
    atBottom,
    targetKey,
    onScroll,
    followLatest,
    showRow,
    showTarget,
    rememberAnchor,
  };
}
