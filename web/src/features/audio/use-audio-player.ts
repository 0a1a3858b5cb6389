import { useCallback, useEffect, useRef, useState } from 'react';
import type { ViewLine } from '../transcripts/transcript-view.ts';

/** The last line (in reading order) that starts at or before `seconds`: the one being heard; -1 when none. */
export function lineAtTime(lines: readonly ViewLine[], seconds: number): number {
  let found = -1;
  for (let i = 0; i < lines.length; i++) {
    const at = lines[i]!.seconds;
    if (at === null) continue;
    if (at > seconds) break;
    found = i;
  }
  return found;
}

/**
 * The viewer's audio element: where it is (while it plays or was moved) and a seek that
 * plays from a time. `time` is null until the reader has played or sought, so no line is
 * marked as heard before anything was.
 */
export function useAudioPlayer() {
  const ref = useRef<HTMLAudioElement | null>(null);
  const [time, setTime] = useState<number | null>(null);
  useEffect(() => {
    const audio = ref.current;
    if (!audio) return;
    const update = () => setTime(audio.currentTime);
    audio.addEventListener('timeupdate', update);
    audio.addEventListener('seeked', update);
    return () => {
      audio.removeEventListener('timeupdate', update);
      audio.removeEventListener('seeked', update);
    };
  });
  const seek = useCallback((seconds: number) => {
    const audio = ref.current;
    if (!audio) return;
    audio.currentTime = seconds;
    setTime(seconds);
    // A browser may refuse to play without a gesture: the click that asked for it is one.
    void audio.play().catch(() => undefined);
  }, []);
  return { ref, time, seek };
}
