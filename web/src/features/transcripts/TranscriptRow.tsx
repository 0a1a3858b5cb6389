// One transcript line: time (a play button where the recording was kept), speaker and text,
// with the find matches marked.
import { memo, useMemo, type ReactNode } from 'react';
import { searchPattern, speakerColor, type ViewLine } from './transcript-view.ts';

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

export const TranscriptRow = memo(function TranscriptRow({
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
