/**
 * Brings row `index` of a virtualised transcript box into view in the window too, not only
 * inside the box: the box can sit below a long summary, where scrolling it alone shows
 * nothing. The row may render only after the box scrolled (a frame or two later), so this
 * waits for it a few frames; then the row is centred in the box and the box in the window.
 */
export function revealRowInWindow(box: HTMLElement | null, index: number, frames = 5): void {
  requestAnimationFrame(() => {
    const row = box?.querySelector<HTMLElement>(`[data-index="${index}"]`);
    if (row) row.scrollIntoView({ block: 'center', inline: 'nearest' });
    else if (frames > 0) revealRowInWindow(box, index, frames - 1);
  });
}
