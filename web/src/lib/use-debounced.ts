import { useEffect, useState } from 'react';

/** `value` once it has stopped changing for `delayMs` (at once when it becomes blank). */
export function useDebounced<T>(value: T, delayMs: number, immediate?: (value: T) => boolean): T {
  const [settled, setSettled] = useState(value);
  const now = immediate?.(value) ?? false;
  useEffect(() => {
    if (now) {
      setSettled(value);
      return;
    }
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs, now]);
  return now ? value : settled;
}
