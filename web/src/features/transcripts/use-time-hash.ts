import { useEffect, useRef } from 'react';

/** Seconds of a `#t=HH:MM:SS` (or `#t=MM:SS`) hash, or null. */
export function timeFromHash(hash: string): number | null {
  const m = /^#t=(\d{1,3}):([0-5]\d)(?::([0-5]\d))?$/.exec(hash);
  if (!m) return null;
  return m[3] === undefined
    ? Number(m[1]) * 60 + Number(m[2])
    : Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

/**
 * Links to a moment (`/sessions/{id}#t=HH:MM:SS`, from recaps and chat citations) scroll the
 * transcript to it: once its lines are there, and on every later change of the hash.
 */
export function useTimeHash(jump: (seconds: number) => unknown, ready: boolean): void {
  const jumpRef = useRef(jump);
  jumpRef.current = jump;
  useEffect(() => {
    if (!ready) return;
    const go = () => {
      const seconds = timeFromHash(window.location.hash);
      if (seconds !== null) jumpRef.current(seconds);
    };
    go();
    window.addEventListener('hashchange', go);
    return () => window.removeEventListener('hashchange', go);
  }, [ready]);
}
