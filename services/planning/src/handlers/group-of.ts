import { listGroupsRpc, listTranscriptsPageRpc, type Group } from '@chronicler/contracts';
import { call, ServiceError, type Bus } from '@chronicler/kit';
import type { SessionDigest } from '@chronicler/ai';

export const groupNotFound = (): ServiceError => new ServiceError('not_found', 'Group not found');

/** One of the owner's groups by id or group_id; another user's group is not found. */
export async function ownGroup(bus: Bus, ownerId: string, groupId: string): Promise<Group> {
  const groups = await call(bus, listGroupsRpc, { owner_id: ownerId });
  const group = groups.find((g) => g.id === groupId || g.group_id === groupId);
  if (!group) throw groupNotFound();
  return group;
}

/**
 * The group's sessions as the AI sees them, oldest first. Read page by page: a user's whole
 * session list can exceed one bus message.
 */
export async function sessionDigests(bus: Bus, ownerId: string, groupId: string): Promise<SessionDigest[]> {
  const digests: (SessionDigest & { at: number })[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await call(bus, listTranscriptsPageRpc, { owner_id: ownerId, after });
    for (const item of page.items) {
      if (item.group_id !== groupId) continue;
      const at = Date.parse(item.session_timestamp);
      digests.push({
        name: item.name,
        date: item.session_timestamp,
        summary: item.summary,
        at: Number.isNaN(at) ? 0 : at,
      });
    }
    if (!page.next) break;
    after = page.next;
  }
  return digests.sort((a, b) => a.at - b.at).map(({ at: _at, ...d }) => d);
}
