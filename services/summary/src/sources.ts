import {
  getGroupRpc,
  getTranscriptRpc,
  LIST_PAGE_MAX,
  listTranscriptsPageRpc,
  type Group,
  type Transcript,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { call, type Bus } from '@chronicler/kit';
import type { SessionDigest } from '@chronicler/ai';
import { createHash } from 'node:crypto';

export type TranscriptWithContent = Transcript;

/** One of the owner's sessions with its content (the kit's call carries any size). */
export function readTranscript(bus: Bus, ownerId: string, id: string): Promise<TranscriptWithContent> {
  return call(bus, getTranscriptRpc, { owner_id: ownerId, id });
}

/** One of the owner's groups; another user's is the group service's not_found ('Group not found'). */
export function findGroup(bus: Bus, ownerId: string, groupId: string): Promise<Group> {
  return call(bus, getGroupRpc, { owner_id: ownerId, id: groupId });
}

/** The group's sessions, page by page: O(the group's sessions), not O(the owner's). */
export async function groupSessions(
  bus: Bus,
  ownerId: string,
  groupId: string,
): Promise<TranscriptListItem[]> {
  const items: TranscriptListItem[] = [];
  let after: string | undefined;
  do {
    const page = await call(bus, listTranscriptsPageRpc, {
      owner_id: ownerId,
      group_id: groupId,
      limit: LIST_PAGE_MAX,
      after,
    });
    items.push(...page.items);
    after = page.next ?? undefined;
  } while (after);
  return items;
}

/** What a campaign summary is made from: the sessions that have a summary, oldest first. */
export function campaignInput(sessions: TranscriptListItem[]): {
  digests: SessionDigest[];
  fingerprint: string;
} {
  const summarized = sessions
    .filter((s) => s.summary.trim())
    .sort((a, b) => a.session_timestamp.localeCompare(b.session_timestamp) || a.id.localeCompare(b.id));
  const fingerprint = createHash('sha256')
    .update(JSON.stringify(summarized.map((s) => [s.id, s.summary])))
    .digest('hex');
  return {
    digests: summarized.map((s) => ({
      id: s.id,
      name: s.name,
      date: s.session_timestamp,
      summary: s.summary,
    })),
    fingerprint,
  };
}
