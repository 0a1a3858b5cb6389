import { formatOffset, parseTranscriptLines, speakerLabel } from '@chronicler/contracts';
import { memo, useEffect, useMemo, useState } from 'react';

/** Lines per rendered chunk: each chunk is one block the browser can skip while off screen. */
export const CHUNK_LINES = 200;
/** Chunks rendered at once on first paint; the rest follow one task at a time. */
const FIRST_CHUNKS = 2;
const CHUNKS_PER_STEP = 2;

/** The non-blank lines of a transcript, grouped into chunks of raw text. */
export function chunkTranscript(content: string, size: number = CHUNK_LINES): string[] {
  const chunks: string[] = [];
  let current: string[] = [];
  for (const raw of content.split(/\r?\n/)) {
    if (!raw.trim()) continue;
    current.push(raw);
    if (current.length === size) {
      chunks.push(current.join('\n'));
      current = [];
    }
  }
  if (current.length > 0) chunks.push(current.join('\n'));
  return chunks;
}

/**
 * One chunk of lines. Memoised on its text, so a polled session that grows only renders
 * the chunk that changed; `content-visibility: auto` (transcript-viewer.css) lets the
 * browser skip layout and paint of chunks that are off screen.
 */
const TranscriptChunk = memo(function TranscriptChunk({ text }: { text: string }) {
  const lines = useMemo(() => parseTranscriptLines(text), [text]);
  return (
    <div className="transcript-chunk">
      {lines.map((line, index) => {
        const speaker = speakerLabel(line.speaker);
        if (line.seconds === null && speaker === null) {
          return (
            <p key={index} className="transcript-line transcript-line-plain">
              {line.text}
            </p>
          );
        }
        return (
          <p key={index} className="transcript-line">
            {/* Real spaces between the parts, so copied text reads like the stored line. */}
            {line.seconds !== null ? (
              <>
                <span className="transcript-time">[{formatOffset(line.seconds)}]</span>{' '}
              </>
            ) : null}
            {speaker !== null ? (
              <>
                <span className="transcript-speaker">{speaker}:</span>{' '}
              </>
            ) : null}
            <span className="transcript-text">{line.text}</span>
          </p>
        );
      })}
    </div>
  );
});

/**
 * The transcript's lines. A 500,000-character transcript is thousands of lines: the first
 * chunks render at once and the others follow in separate tasks, so the page answers
 * input while the rest is still being added.
 */
export function TranscriptLines({ content }: { content: string }) {
  const chunks = useMemo(() => chunkTranscript(content), [content]);
  const [shown, setShown] = useState(FIRST_CHUNKS);

  useEffect(() => {
    if (shown >= chunks.length) return;
    const timer = window.setTimeout(() => setShown((count) => count + CHUNKS_PER_STEP), 0);
    return () => window.clearTimeout(timer);
  }, [shown, chunks.length]);

  const complete = shown >= chunks.length;
  return (
    <div className="transcript-lines" aria-busy={complete ? undefined : true} data-complete={complete}>
      {chunks.slice(0, shown).map((text, index) => (
        <TranscriptChunk key={index} text={text} />
      ))}
    </div>
  );
}
