/**
 * Runs work one piece after another per key, in the order it is handed in, and keys in parallel:
 * a consumer that takes several messages at once keeps each session's in stream order (a start
 * before its finals). A failed piece does not stop the next; its caller gets the failure. A key
 * is forgotten once its last piece has run.
 */
export function keyedSequence(): (key: string, work: () => Promise<void>) => Promise<void> {
  const chains = new Map<string, Promise<void>>();
  return (key, work) => {
    const prev = chains.get(key) ?? Promise.resolve();
    const next = prev.then(work, work);
    const tail = next.catch(() => {});
    chains.set(key, tail);
    void tail.then(() => {
      if (chains.get(key) === tail) chains.delete(key);
    });
    return next;
  };
}
