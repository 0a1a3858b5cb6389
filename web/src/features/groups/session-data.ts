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

/** Case-insensitive match of a search text against any of the given fields. */
export function matchesSearch(query: string, ...fields: (string | null | undefined)[]): boolean {
  const needle = query.trim().toLowerCase();
  if (!needle) return true;
  return fields.some((field) => Boolean(field) && field!.toLowerCase().includes(needle));
}

/** The first SUMMARY_PREVIEW_CHARS characters, with an ellipsis when something was cut. */
function previewText(text: string, limit: number = SUMMARY_PREVIEW_CHARS): string {
  return text.length > limit ? `${text.slice(0, limit).trimEnd()}...` : text;
}

/**
 * en-US date and time ('Mar 14, 2026, 7:00 PM'), the date alone ('Mar 14, 2026') for a
 * session given a date only, or 'Date N/A'. A date-only session is stored as the start of
 * its local day (the session form sends that), so local midnight means there is no time.
 */
export function formatSessionTimestamp(value: string | null | undefined): string {
  if (!value) return 'Date N/A';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return 'Date N/A';
  const dateOnly =
    date.getHours() === 0 &&
    date.getMinutes() === 0 &&
    date.getSeconds() === 0 &&
    date.getMilliseconds() === 0;
  return date.toLocaleString('en-US', {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    ...(dateOnly ? {} : { hour: 'numeric', minute: '2-digit' }),
  });
}

/**
 * Markdown as the words a reader sees: emphasis, headings, list and quote markers, links
 * and code fences dropped; the rest as written. For previews that show no formatting.
 */
export function markdownToPlainText(text: string): string {
  return (
    text
      .replace(/```[^\n]*\n?/g, '')
      // Link texts may hold brackets themselves: [[00:03:54]](#t=00:03:54) reads [00:03:54].
      .replace(/!?\[((?:[^[\]]|\[[^\]]*\])*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, ' ')
      .replace(/^\s{0,3}(#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)/gm, '')
      .replace(/^\s*([-*_]\s*){3,}$/gm, '')
      .replace(/(\*\*|__|~~)(?=\S)([\s\S]*?\S)\1/g, '$2')
      .replace(/(^|[^\w*])[*_](?=\S)([^*_\n]*?\S)[*_](?=[^\w*]|$)/g, '$1$2')
      .replace(/`([^`]*)`/g, '$1')
      .replace(/\n{3,}/g, '\n\n')
      .trim()
  );
}

/** Whether a text uses markdown at all; plain prose is shown as written, its line breaks kept. */
export function looksLikeMarkdown(text: string): boolean {
  return /[*_`#>[\]~]|^\s*([-+]|\d+[.)])\s/m.test(text);
}

/** The collapsed preview of a markdown summary: plain text cut at SUMMARY_PREVIEW_CHARS. */
export const summaryPreview = (markdown: string): string => previewText(markdownToPlainText(markdown));

/** How long after its creation a session without a summary may still be given one automatically. */
const NEW_SESSION_WINDOW_MS = 2 * 60_000;

/**
 * Whether the server is still working on this session's transcript or summary, so a list
 * showing it should ask again: a summary being generated, a recording being transcribed, or
 * a session just created without a summary (the automatic one starts a moment later).
 */
export function awaitingServer(session: TranscriptSummaryItem, now: number = Date.now()): boolean {
  if (isActive(session) || session.summary?.trim()) return false;
  if (session.summary_status === 'generating') return true;
  if (session.transcription_status === 'queued' || session.transcription_status === 'processing') return true;
  if (session.summary_status !== 'none' || session.transcription_status === 'failed') return false;
  const created = Date.parse(session.created_at);
  return Number.isFinite(created) && now - created < NEW_SESSION_WINDOW_MS;
}
