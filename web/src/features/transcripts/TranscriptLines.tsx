import { useVirtualizer } from '@tanstack/react-virtual';
import {
  memo,
  useCallback,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type CSSProperties,
  type FormEvent,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import {
  findMatches,
  firstLineAtOrAfter,
  parseTimeInput,
  searchPattern,
  speakerColor,
  speakerColors,
  speakersOf,
  type ViewLine,
} from './transcript-view.ts';
import { EditableRow, type LineTools } from './tools/EditableRow.tsx';
import { revealRowInWindow } from './tools/reveal-row.ts';
import { lineAtTime } from '../audio/use-audio-player.ts';
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

function highlighted(text: string, pattern: RegExp | null, activeStart: number | null): ReactNode {
  if (!pattern) return text;
  const parts: ReactNode[] = [];
  let last = 0;
  for (const found of text.matchAll(pattern)) {
    if (found.index > last) parts.push(text.slice(last, found.index));
    parts.push(
      <mark
        key={found.index}
        className={found.index === activeStart ? 'transcript-mark is-current' : 'transcript-mark'}
      >
        {found[0]}
      </mark>,
    );
    last = found.index + found[0].length;
  }
  if (parts.length === 0) return text;
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

interface RowProps {
  line: ViewLine;
  color: string | undefined;
  query: string;
  activeStart: number | null;
  target: boolean;
  /** The line being heard in the player. */
  playing?: boolean;
  /** Plays the recording from a time (a session that kept its audio), the line's speaker's track where there is one. */
  onTimeClick?: ((seconds: number, speaker: string | null) => void) | undefined;
}

const TranscriptRow = memo(function TranscriptRow({
  line,
  color,
  query,
  activeStart,
  target,
  playing = false,
  onTimeClick,
}: RowProps) {
  const pattern = useMemo(() => searchPattern(query), [query]);
  const classes = ['transcript-line'];
  if (line.time === null && line.speaker === null) classes.push('transcript-line-plain');
  if (line.interim) classes.push('is-interim');
  if (target) classes.push('is-target');
  if (playing) classes.push('is-playing');
  const seconds = line.seconds;
  return (
    <p className={classes.join(' ')}>
      {/* Real spaces between the parts, so copied text reads like the stored line. */}
      {line.time !== null ? (
        <>
          {onTimeClick && seconds !== null ? (
            <button
              type="button"
              className="transcript-time transcript-time-button"
              aria-label={`Play from ${line.time}`}
              onClick={() => onTimeClick(seconds, line.speaker)}
            >
              [{line.time}]
            </button>
          ) : (
            <span className="transcript-time">[{line.time}]</span>
          )}{' '}
        </>
      ) : null}
      {line.speaker !== null ? (
        <>
          <span className="transcript-speaker" style={{ color: color ?? speakerColor(line.speaker) }}>
            {line.speaker}:
          </span>{' '}
        </>
      ) : null}
      <span className="transcript-text">
        {line.interim ? line.text : highlighted(line.text, pattern, activeStart)}
      </span>
      {line.interim ? (
        <>
          {' '}
          <span className="transcript-interim-tag">in progress</span>
        </>
      ) : null}
    </p>
  );
});

function FindBox({
  query,
  onQuery,
  count,
  current,
  onStep,
}: {
  query: string;
  onQuery: (query: string) => void;
  count: number;
  current: number;
  onStep: (delta: 1 | -1) => void;
}) {
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      onStep(event.shiftKey ? -1 : 1);
    } else if (event.key === 'Escape' && query) {
      event.preventDefault();
      onQuery('');
    }
  };
  return (
    <div className="transcript-find" role="search">
      <label className="visually-hidden" htmlFor="transcript-find-input">
        Find in transcript
      </label>
      <input
        id="transcript-find-input"
        className="text-input transcript-find-input"
        type="search"
        placeholder="Find in transcript"
        autoComplete="off"
        value={query}
        onChange={(event) => onQuery(event.target.value)}
        onKeyDown={onKeyDown}
      />
      <span className="transcript-find-count muted small" aria-live="polite">
        {query.trim() ? (count ? `${current + 1} of ${count}` : 'No matches') : ''}
      </span>
      <button
        type="button"
        className="button button-secondary button-compact transcript-find-step"
        aria-label="Previous match"
        title="Previous match (Shift+Enter)"
        disabled={count === 0}
        onClick={() => onStep(-1)}
      >
        <span aria-hidden="true">↑</span>
      </button>
      <button
        type="button"
        className="button button-secondary button-compact transcript-find-step"
        aria-label="Next match"
        title="Next match (Enter)"
        disabled={count === 0}
        onClick={() => onStep(1)}
      >
        <span aria-hidden="true">↓</span>
      </button>
    </div>
  );
}

function JumpToTime({ onJump }: { onJump: (seconds: number) => string | null }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const seconds = parseTimeInput(value);
    setError(seconds === null ? 'Enter a time as HH:MM:SS or MM:SS' : onJump(seconds));
  };
  return (
    <form className="transcript-jump" onSubmit={submit} noValidate>
      <label className="transcript-jump-label small" htmlFor="transcript-jump-input">
        Jump to time
      </label>
      <input
        id="transcript-jump-input"
        className="text-input transcript-jump-input"
        type="text"
        inputMode="numeric"
        placeholder="HH:MM:SS"
        autoComplete="off"
        value={value}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? 'transcript-jump-error' : undefined}
        onChange={(event) => {
          setValue(event.target.value);
          setError(null);
        }}
      />
      <button type="submit" className="button button-secondary button-compact">
        Go
      </button>
      {error ? (
        <span id="transcript-jump-error" className="transcript-jump-error small" role="alert">
          {error}
        </span>
      ) : null}
    </form>
  );
}

function SpeakerFilter({
  speakers,
  colors,
  selected,
  onToggle,
  onAll,
}: {
  speakers: string[];
  colors: ReadonlyMap<string, string>;
  selected: ReadonlySet<string>;
  onToggle: (speaker: string) => void;
  onAll: () => void;
}) {
  return (
    <div className="transcript-speakers" role="group" aria-label="Filter by speaker">
      <button type="button" className="speaker-chip" aria-pressed={selected.size === 0} onClick={onAll}>
        All speakers
      </button>
      {speakers.map((speaker) => (
        <button
          key={speaker}
          type="button"
          className="speaker-chip"
          aria-pressed={selected.has(speaker)}
          style={{ '--speaker-color': colors.get(speaker) } as CSSProperties}
          onClick={() => onToggle(speaker)}
        >
          <span className="speaker-dot" aria-hidden="true" />
          {speaker}
        </button>
      ))}
    </div>
  );
}

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
 * inside its own scroll box so appending lines never moves the rest of the page.
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
  const [targetKey, setTargetKey] = useState<string | null>(null);
  const [atBottom, setAtBottom] = useState(true);
  const scrollRef = useRef<HTMLDivElement>(null);
  // Live sessions open at the newest line and follow; a reader who scrolls up stops following.
  const followRef = useRef(live);

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
    followRef.current = false;
    setTargetKey(rows[index]!.key);
    revealRow(index, 'center');
  }, [moment, rows, revealRow]);

  const onScroll = () => {
    const box = scrollRef.current;
    if (!box) return;
    const bottom = box.scrollHeight - box.scrollTop - box.clientHeight <= FOLLOW_SLACK_PX;
    followRef.current = bottom;
    setAtBottom(bottom);
  };

  const showMatch = (index: number) => {
    const match = matches[index];
    if (!match) return;
    followRef.current = false;
    revealRow(match.line, 'center');
  };

  // A new search goes to its first match (here, not in an effect: new live lines that
  // change the matches must not pull the reader back to the first one).
  const search = (value: string) => {
    setQuery(value);
    setCurrent(0);
    const first = findMatches(rows, value)[0];
    if (first) {
      followRef.current = false;
      revealRow(first.line, 'center');
    }
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
    followRef.current = false;
    setTargetKey(rows[index]!.key);
    revealRow(index, 'start');
    return null;
  };

  // A filter change keeps the reader at the same moment of the session: the first line shown
  // at or after the time of the line that was at the top of the box.
  const anchorRef = useRef<number | null>(null);
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
      <div className="transcript-frame">
        <div
          ref={scrollRef}
          className="transcript-scroll"
          onScroll={onScroll}
          // The box scrolls on its own: keyboard users reach it with Tab and scroll with the arrows.
          tabIndex={0}
          role="region"
          aria-label="Transcript lines"
        >
          {rows.length === 0 ? (
            <p className="muted transcript-no-rows">No lines from the chosen speakers.</p>
          ) : (
            <div
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
                    style={{ transform: `translateY(${item.start}px)` }}
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
