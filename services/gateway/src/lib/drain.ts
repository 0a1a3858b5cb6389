/** Something that can be closed: an engine.io connection, whose client then reconnects. */
export interface Closable {
  close(): void;
}

/**
 * Closes `items` in `slices` groups spread evenly over `overMs` (the first at once), so the
 * clients of a stopping server reconnect elsewhere a slice at a time rather than all at once.
 * Resolves once the last slice is closed.
 */
export async function closeInSlices(
  items: readonly Closable[],
  opts: { slices: number; overMs: number; sleep?: (ms: number) => Promise<void> },
): Promise<void> {
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const slices = Math.max(1, Math.min(opts.slices, items.length));
  const size = Math.ceil(items.length / slices);
  const gap = slices > 1 ? opts.overMs / (slices - 1) : 0;
  for (let i = 0; i < slices; i++) {
    if (i > 0 && gap > 0) await sleep(gap);
    for (const item of items.slice(i * size, (i + 1) * size)) item.close();
  }
}
