/**
 * The app's own links inside a text a model or the offline fallback wrote, made to work where the
 * text is read: in a shared view (services/gateway routes/shared) or in an exported file
 * (services/transcript tools/export-formats).
 *
 * The links inside a shared text (a summary, a campaign summary, a story) as a player can follow
 * them. The owner's text links moments and sessions of the app's private pages
 * (`[[00:01:10]](/sessions/{id}#t=00:01:10)`, `[Session one](/sessions/{id})`); a player holds no
 * account, so each becomes the same moment inside the shared view, or, where the link does not
 * open that session, its words without a link.
 */

// A Markdown link to /sessions/{id}: its text may hold brackets itself ([[00:03:54]]).
const SESSION_LINK = /\[((?:[^[\]\n]|\[[^\]\n]*\])*)\]\(\/sessions\/([A-Za-z0-9_-]+)([#?][^)\s]*)?\)/g;

/**
 * `text` with every link to a session rewritten: `where(id)` names the shared page that opens
 * that session (the moment's `#t=` kept), or null to keep only the link's words.
 */
export function sharedLinks(text: string, where: (sessionId: string) => string | null): string {
  return text.replace(SESSION_LINK, (_all, label: string, id: string, rest: string | undefined) => {
    const page = where(id);
    return page === null ? label : `[${label}](${page}${rest ?? ''})`;
  });
}

/** The session ids a shared text links to. */
export const linkedSessions = (text: string): Set<string> =>
  new Set([...text.matchAll(SESSION_LINK)].map((m) => m[2]!));
