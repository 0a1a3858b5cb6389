import { groupMembersRpc, groupNamesRpc } from '@chronicler/contracts';
import { call, type Bus, type Cache } from '@chronicler/kit';
import { createHash } from 'node:crypto';

/** How long learned names are reused before the sessions are read again. */
const LEARNED_NAMES_TTL_MS = 5 * 60 * 1000;

/**
 * The names learned from a group's sessions. The transcript service owns the texts and
 * answers only the names (a few hundred bytes instead of megabytes of transcript on the bus);
 * reading them costs it up to ten sessions' text, so the answer is kept in the coordination
 * cache (Redis in the cluster, shared by every replica) for LEARNED_NAMES_TTL_MS. The key
 * holds a digest of the group's session ids and campaign summary: adding, removing or moving a
 * session, or rewriting the summary, reads the names afresh; an edit inside a session shows
 * once the entry expires.
 */
export async function learnedNames(
  bus: Bus,
  cache: Cache,
  req: { owner_id: string; group_id: string; campaign_summary: string },
): Promise<string[]> {
  const members = await call(bus, groupMembersRpc, { owner_id: req.owner_id, group_ids: [req.group_id] });
  const sessions = members[req.group_id] ?? [];
  if (sessions.length === 0 && !req.campaign_summary.trim()) return [];
  const digest = createHash('sha256')
    .update(sessions.join(','))
    .update('\u0000')
    .update(req.campaign_summary)
    .digest('base64url')
    .slice(0, 22);
  const key = `group:learned-names:${req.owner_id}:${req.group_id}:${digest}`;
  const cached = await cache.get<string[]>(key);
  if (Array.isArray(cached)) return cached;
  const { names } = await call(bus, groupNamesRpc, req, { timeoutMs: 15_000 });
  await cache.set(key, names, LEARNED_NAMES_TTL_MS);
  return names;
}
