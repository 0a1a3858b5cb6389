import { useVirtualizer, useWindowVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { firstLineAtOrAfter, type ViewLine } from './transcript-view.ts';
import { revealRowInWindow } from './tools/reveal-row.ts';
import { useIsMobile } from '../../lib/use-media-query.ts';
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

/** Where the list starts in the document (the window virtualiser's scroll margin). */
function documentTop(list: HTMLElement | null): number {
  return list ? Math.round(list.getBoundingClientRect().top + window.scrollY) : 0;
}

/** What a fixed bar covers at the top of the window (the phone's top bar sets scroll-padding-top). */
function windowPaddingTop(): number {
  return parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0;
}

/**
 * The transcript's scrolling: the virtualised rows, following new lines while the reader is
 * at the bottom, showing a row (find, jump, a linked moment) and keeping the reading position
 * across a speaker filter change.
 *
 * On a wide screen the lines scroll in their own box, so the cards below stay in reach while
 * a live session grows. On a phone (768 px or less) a box inside the page is a scroll trap
 * (the thumb scrolls the box or the page depending on where it lands, and the box is a
 * fraction of a small screen), so there the lines scroll with the page: the window is the
 * virtualiser's scroll element (`windowed`).
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
  const windowed = useIsMobile();
  const hasRows = rows.length > 0;
  const [targetKey, setTargetKey] = useState<string | null>(null);
  const [atBottom, setAtBottom] = useState(true);
  const scrollRef = useRef<HTMLDivElement>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const [listTop, setListTop] = useState(0);
  const [paddingTop, setPaddingTop] = useState(0);
  // Live sessions open at the newest line and follow; a reader who scrolls up stops following.
  const followRef = useRef(live);

  const common = {
    count: rows.length,
    estimateSize: () => ESTIMATED_ROW_PX,
    overscan: rows.length <= FULL_RENDER_MAX ? rows.length : OVERSCAN,
    getItemKey: (index: number) => rows[index]?.key ?? index,
  };
  // Both exist, one is enabled: a phone turned sideways (or a resized window) changes which.
  const boxVirtualizer = useVirtualizer({
    ...common,
    enabled: !windowed,
    getScrollElement: () => scrollRef.current,
    // The box is not measured before the first paint: assume a window's height, so the first
    // frame already shows lines rather than an empty box.
    initialRect: { width: 0, height: window.innerHeight },
  });
  const windowVirtualizer = useWindowVirtualizer({
    ...common,
    enabled: windowed,
    scrollMargin: listTop,
    scrollPaddingStart: paddingTop,
  });
  const virtualizer = windowed ? windowVirtualizer : boxVirtualizer;

  // In the window the list's place in the page moves as what is above it changes (a summary
  // loads, a player opens): keep the virtualiser's scroll margin to it.
  useLayoutEffect(() => {
    if (!windowed) return;
    const update = () => {
      setListTop(documentTop(listRef.current));
      setPaddingTop(windowPaddingTop());
    };
    update();
    const observer = new ResizeObserver(update);
    observer.observe(document.body);
    window.addEventListener('resize', update);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', update);
    };
  }, [windowed, hasRows]);

  const scrollToRow = useCallback(
    (index: number, align: 'start' | 'center' | 'end') => {
      if (index < 0 || index >= rows.length) return;
      virtualizer.scrollToIndex(index, { align });
    },
    [virtualizer, rows.length],
  );

  /** Brings the newest line into view; in the window only downwards (never past the list's end). */
  const scrollToLatest = useCallback(() => {
    if (rows.length === 0) return;
    if (!windowed) {
      scrollToRow(rows.length - 1, 'end');
      return;
    }
    const end = documentTop(listRef.current) + virtualizer.getTotalSize() - window.innerHeight;
    if (end > window.scrollY) window.scrollTo({ top: end });
  }, [windowed, rows.length, scrollToRow, virtualizer]);

  // Find and Jump: the hit in the box, and the box in the window.
  const revealRow = useCallback(
    (index: number, align: 'start' | 'center') => {
      scrollToRow(index, align);
      revealRowInWindow(listRef.current, index);
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
    scrollToLatest();
  }, [scrollToLatest]);

  // New lines (or a growing interim, or rows measured taller than estimated) while the reader
  // is at the bottom: stay at the bottom. Elsewhere the rows above the viewport do not change,
  // so the reading position holds.
  const totalSize = virtualizer.getTotalSize();
  useLayoutEffect(() => {
    if (followRef.current) scrollToLatest();
  }, [rows, totalSize, scrollToLatest]);

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

  /** Whether the end of the lines is in view (the reader follows new ones from there). */
  const endInView = useCallback((): boolean => {
    if (windowed) {
      const list = listRef.current;
      return !list || list.getBoundingClientRect().bottom - window.innerHeight <= FOLLOW_SLACK_PX;
    }
    const box = scrollRef.current;
    return !box || box.scrollHeight - box.scrollTop - box.clientHeight <= FOLLOW_SLACK_PX;
  }, [windowed]);

  const onScroll = useCallback(() => {
    const bottom = endInView();
    followRef.current = bottom;
    setAtBottom(bottom);
  }, [endInView]);

  useEffect(() => {
    if (!windowed) return;
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, [windowed, onScroll]);

  // A filter change keeps the reader at the same moment of the session: the first line shown
  // at or after the time of the line that was at the top of the box (or of the window).
  const anchorRef = useRef<number | null>(null);
  /** Call before the filter changes: notes the time of the line at the top of the view. */
  const rememberAnchor = () => {
    if (followRef.current) return;
    const top = (virtualizer.scrollOffset ?? 0) + (windowed ? paddingTop : 0);
    const first = virtualizer.getVirtualItems().find((item) => item.end > top);
    anchorRef.current = first ? (rows[first.index]?.seconds ?? null) : null;
  };
  useLayoutEffect(() => {
    const seconds = anchorRef.current;
    anchorRef.current = null;
    if (seconds === null || followRef.current) return;
    const index = firstLineAtOrAfter(rows, seconds);
    if (index !== -1) scrollToRow(index, 'start');
  }, [activeFilter, rows, scrollToRow]);

  return {
    /** The box the lines scroll in on a wide screen. */
    scrollRef,
    /** The lines' container (its height is the whole list's). */
    listRef,
    virtualizer,
    /** The lines scroll with the page (a phone), not in their own box. */
    windowed,
    atBottom,
    targetKey,
    onScroll: windowed ? undefined : onScroll,
    followLatest,
    showRow,
    showTarget,
    rememberAnchor,
  };
}
