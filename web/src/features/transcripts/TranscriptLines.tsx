import { useMemo, useState } from 'react';
import {
  findMatches,
  firstLineAtOrAfter,
  speakerColors,
  speakersOf,
  type ViewLine,
} from './transcript-view.ts';
import { EditableRow, type LineTools } from './tools/EditableRow.tsx';
import { TranscriptRow } from './TranscriptRow.tsx';
import { FindBox, JumpToTime, SpeakerFilter } from './TranscriptToolbar.tsx';
import { useTranscriptScroll } from './use-transcript-scroll.ts';
import { lineAtTime } from '../audio/use-audio-player.ts';
import type { Moment } from '../search/moment.ts';

interface TranscriptLinesProps {
  /** Final lines, in reading order. */
  lines: ViewLine[];
  /** Lines still being spoken, shown after the final ones. */
  interims?: ViewLine[];
  /** An active session: opens at the newest line and follows new ones while the reader is there. */
  live?: boolean;
  /** The label of the button back to the newest line ('Jump to live' while connected). */
  jumpLabel?: string;
  /** Edit final lines in place (double-click or the pencil). */
  lineTools?: LineTools;
  /** A moment the page's link names (#t=, #line=): shown and highlighted once its line is there. */
  moment?: Moment | null;
  /** Plays the session's recording from a line's time; without it times are plain text. */
  onTimeClick?: (seconds: number, speaker: string | null) => void;
  /** Where the player is (seconds), to mark the line being heard; null before anything played. */
  playingTime?: number | null;
}

/**
 * The transcript's lines with find, jump to a time and a speaker filter. The list is
 * virtualised (only rows near the viewport are in the page, each measured as it renders),
 * inside its own scroll box on a wide screen so appending lines never moves the rest of the
 * page, and scrolling with the page on a phone (see useTranscriptScroll).
 */
export function TranscriptLines({
  lines,
  interims = [],
  live = false,
  jumpLabel = 'Jump to latest',
  lineTools,
  moment = null,
  onTimeClick,
  playingTime = null,
}: TranscriptLinesProps) {
  const [query, setQuery] = useState('');
  const [current, setCurrent] = useState(0);
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set());

  const speakers = useMemo(() => speakersOf(lines), [lines]);
  const colors = useMemo(() => speakerColors(speakers), [speakers]);
  // A chosen speaker who is no longer there (another transcript text) filters nothing.
  const activeFilter = useMemo(
    () => new Set([...selected].filter((speaker) => speakers.includes(speaker))),
    [selected, speakers],
  );
  const rows = useMemo(() => {
    const all = interims.length ? [...lines, ...interims] : lines;
    if (activeFilter.size === 0) return all;
    return all.filter((line) => line.speaker !== null && activeFilter.has(line.speaker));
  }, [lines, interims, activeFilter]);
  const matches = useMemo(() => findMatches(rows, query), [rows, query]);
  const playingIndex = useMemo(
    () => (playingTime === null ? -1 : lineAtTime(rows, playingTime)),
    [rows, playingTime],
  );
  const currentMatch = matches.length ? matches[Math.min(current, matches.length - 1)] : undefined;

  const {
    scrollRef,
    listRef,
    virtualizer,
    windowed,
    atBottom,
    targetKey,
    onScroll,
    followLatest,
    showRow,
    showTarget,
    rememberAnchor,
  } = useTranscriptScroll({ rows, live, moment, activeFilter });

  const showMatch = (index: number) => {
    const match = matches[index];
    if (!match) return;
    showRow(match.line, 'center');
  };

  // A new search goes to its first match (here, not in an effect: new live lines that
  // change the matches must not pull the reader back to the first one).
  const search = (value: string) => {
    setQuery(value);
    setCurrent(0);
    const first = findMatches(rows, value)[0];
    if (first) showRow(first.line, 'center');
  };

  const step = (delta: 1 | -1) => {
    if (matches.length === 0) return;
    const next = (Math.min(current, matches.length - 1) + delta + matches.length) % matches.length;
    setCurrent(next);
    showMatch(next);
  };

  const jumpToTime = (seconds: number): string | null => {
    const index = firstLineAtOrAfter(rows, seconds);
    if (index === -1) return 'No line at or after that time';
    showTarget(index, 'start');
    return null;
  };

  const toggleSpeaker = (speaker: string) => {
    rememberAnchor();
    setSelected((old) => {
      const next = new Set([...old].filter((name) => speakers.includes(name)));
      if (next.has(speaker)) next.delete(speaker);
      else next.add(speaker);
      return next;
    });
  };

  const items = virtualizer.getVirtualItems();
  // In the window the rows' starts count from the top of the page, not of the list.
  const margin = virtualizer.options.scrollMargin;
  const filtered = activeFilter.size > 0;
  return (
    <div className="transcript-view">
      <div className="transcript-toolbar">
        <FindBox
          query={query}
          onQuery={search}
          count={matches.length}
          current={Math.min(current, Math.max(0, matches.length - 1))}
          onStep={step}
        />
        <JumpToTime onJump={jumpToTime} />
        {speakers.length > 1 ? (
          <SpeakerFilter
            speakers={speakers}
            colors={colors}
            selected={activeFilter}
            onToggle={toggleSpeaker}
            onAll={() => {
              rememberAnchor();
              setSelected(new Set());
            }}
          />
        ) : null}
        {filtered ? (
          <p className="transcript-filter-note muted small">
            Showing {rows.length.toLocaleString('en-US')} of{' '}
            {(lines.length + interims.length).toLocaleString('en-US')} lines
          </p>
        ) : null}
      </div>
      <div className={windowed ? 'transcript-frame is-windowed' : 'transcript-frame'}>
        <div
          ref={scrollRef}
          className="transcript-scroll"
          onScroll={onScroll}
          // The box scrolls on its own: keyboard users reach it with Tab and scroll with the
          // arrows. On a phone it scrolls with the page and needs no stop of its own.
          tabIndex={windowed ? undefined : 0}
          role="region"
          aria-label="Transcript lines"
        >
          {rows.length === 0 ? (
            <p className="muted transcript-no-rows">No lines from the chosen speakers.</p>
          ) : (
            <div
              ref={listRef}
              className="transcript-lines"
              style={{ height: virtualizer.getTotalSize() }}
              data-count={rows.length}
            >
              {items.map((item) => {
                const line = rows[item.index]!;
                const row = (
                  <TranscriptRow
                    line={line}
                    color={line.speaker === null ? undefined : colors.get(line.speaker)}
                    query={query}
                    activeStart={currentMatch?.line === item.index ? currentMatch.start : null}
                    target={line.key === targetKey}
                    playing={item.index === playingIndex}
                    onTimeClick={onTimeClick}
                  />
                );
                return (
                  <div
                    key={item.key}
                    ref={virtualizer.measureElement}
                    data-index={item.index}
                    className="transcript-row"
                    style={{ transform: `translateY(${item.start - margin}px)` }}
                  >
                    {lineTools && !line.interim ? (
                      <EditableRow line={line} tools={lineTools}>
                        {row}
                      </EditableRow>
                    ) : (
                      row
                    )}
                  </div>
                );
              })}
            </div>
          )}
        </div>
        {live && !atBottom && rows.length > 0 ? (
          <button type="button" className="button button-primary transcript-jump-live" onClick={followLatest}>
            <span aria-hidden="true">↓</span> {jumpLabel}
          </button>
        ) : null}
      </div>
    </div>
  );
}
