import type { GroupSummaryItem, TranscriptSummaryItem } from '../../api/types.ts';

/** Collapsed summary previews are cut at this many characters. */
export const SUMMARY_PREVIEW_CHARS = 200;

/** The id a group's routes use (group_id when the server sends one). */
export const groupRouteId = (group: GroupSummaryItem): string => group.group_id || group.id;

/** The group a route id names: by group_id or by id. */
export function findGroup(groups: readonly GroupSummaryItem[] | undefined, routeId: string | undefined) {
  if (!groups || !routeId) return undefined;
  return groups.find((group) => group.id === routeId || group.group_id === routeId);
}

export const isActive = (session: TranscriptSummaryItem): boolean => session.status === 'active';

function timestampOf(session: TranscriptSummaryItem): number {
  const time = session.session_timestamp ? Date.parse(session.session_timestamp) : NaN;
  return Number.isNaN(time) ? -Infinity : time;
}

/** Newest first by session_timestamp; sessions without one go last. */
export function newestFirst(sessions: readonly TranscriptSummaryItem[]): TranscriptSummaryItem[] {
  return [...sessions].sort((a, b) => timestampOf(b) - timestampOf(a));
}

/** Active sessions first, each part newest first. */
export function activeThenNewest(sessions: readonly TranscriptSummaryItem[]): TranscriptSummaryItem[] {
  return newestFirst(sessions).sort((a, b) => Number(isActive(b)) - Number(isActive(a)));
}

/** The group's sessions, from the transcript list (group_id is the group's id). */
export function sessionsOfGroup(
  transcripts: readonly TranscriptSummaryItem[],
  group: GroupSummaryItem,
): TranscriptSummaryItem[] {
  const ids = new Set([group.id, groupRouteId(group)]);
  return newestFirst(
    transcripts.filter((session) => Boolean(session.group_id) && ids.has(session.group_id!)),
  );
}

/**
 * Sessions that belong to no group the user has. A group_id naming no known group (the
 * group was deleted and the list has not caught up) counts as ungrouped rather than hiding it.
 */
export function ungroupedSessions(
  transcripts: readonly TranscriptSummaryItem[],
  groups: readonly GroupSummaryItem[],
): TranscriptSummaryItem[] {
  const known = new Set(groups.flatMap((group) => [group.id, groupRouteId(group)]));
  return activeThenNewest(transcripts.filter((session) => !session.group_id || !known.has(session.group_id)));
}

/** Case-insensitive match of a search text against any of the given fields. */
export function matchesSearch(query: string, ...fields: (string | null | undefined)[]): boolean {
  const needle = query.trim().toLowerCase();
  if (!needle) return true;
  return fields.some((field) => Boolean(field) && field!.toLowerCase().includes(needle));
}

/** The first SUMMARY_PREVIEW_CHARS characters, with an ellipsis when something was cut. */
export function previewText(text: string, limit: number = SUMMARY_PREVIEW_CHARS): string {
  return text.length > limit ? `${text.slice(0, limit).trimEnd()}...` : text;
}

/** en-US date and time ('Mar 14, 2026, 7:00 PM'), or 'Date N/A'. */
export function formatSessionTimestamp(value: string | null | undefined): string {
  if (!value) return 'Date N/A';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return 'Date N/A';
  return date.toLocaleString('en-US', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
  });
}
