// The transcript's toolbar controls: find with match stepping, jump to a time, and the
// speaker filter chips.
import { useState, type CSSProperties, type FormEvent, type KeyboardEvent } from 'react';
import { parseTimeInput } from './transcript-view.ts';

export function FindBox({
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

export function JumpToTime({ onJump }: { onJump: (seconds: number) => string | null }) {
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

/** Past this many speakers the chips fold into a menu (a table of 27 voices filled a phone). */
const SPEAKER_CHIPS_MAX = 6;

export function SpeakerFilter({
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
  const chips = (
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
  if (speakers.length <= SPEAKER_CHIPS_MAX) return chips;
  return (
    <details className="transcript-speakers-menu">
      <summary className="speaker-chip">
        {selected.size === 0
          ? `All speakers (${speakers.length})`
          : `${selected.size} of ${speakers.length} speakers`}
      </summary>
      {chips}
    </details>
  );
}
