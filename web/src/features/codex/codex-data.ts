import type { CodexEntry, CodexKind } from '../../api/codex.ts';

/** How each kind is named in the page: one entry, and the tab of all of them. */
export const KIND_LABELS: Record<CodexKind, { one: string; many: string }> = {
  person: { one: 'Person', many: 'People' },
  place: { one: 'Place', many: 'Places' },
  item: { one: 'Item', many: 'Items' },
  faction: { one: 'Faction', many: 'Factions' },
  thread: { one: 'Thread', many: 'Threads' },
};

/** A mention's moment as the list shows it: its time, or its line when it has none. */
export function formatOffsetLabel(seconds: number | null, line: number): string {
  if (seconds === null) return `line ${line + 1}`;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return [h, m, s].map((n) => String(n).padStart(2, '0')).join(':');
}

/** The entries of a kind ('all': every kind) whose name, other names or description hold the query. */
export function filterEntries(entries: CodexEntry[], kind: CodexKind | 'all', query: string): CodexEntry[] {
  const q = query.trim().toLowerCase();
  return entries.filter(
    (e) =>
      (kind === 'all' || e.kind === kind) &&
      (!q || [e.name, ...e.aliases, e.description].some((text) => text.toLowerCase().includes(q))),
  );
}
