import { getGroupRpc, LIST_PAGE_MAX, listTranscriptsPageRpc, type Group } from '@chronicler/contracts';
import { call, ServiceError, type Bus } from '@chronicler/kit';
import type { SessionDigest } from '@chronicler/ai';

const groupNotFound = (): ServiceError => new ServiceError('not_found', 'Group not found');

/** One of the owner's groups (id and group_id are the same value); another user's group is not found. */
export async function ownGroup(bus: Bus, ownerId: string, groupId: string): Promise<Group> {
  try {
    return await call(bus, getGroupRpc, { owner_id: ownerId, id: groupId });
  } catch (err) {
    if (ServiceError.is(err) && err.code === 'not_found') throw groupNotFound();
    throw err;
  }
}

/** The group's sessions as the AI sees them, oldest first; only the group's are read. */
export async function sessionDigests(bus: Bus, ownerId: string, groupId: string): Promise<SessionDigest[]> {
  const digests: (SessionDigest & { at: number })[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await call(bus, listTranscriptsPageRpc, {
      owner_id: ownerId,
      group_id: groupId,
      limit: LIST_PAGE_MAX,
      after,
    });
    for (const item of page.items) {
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
