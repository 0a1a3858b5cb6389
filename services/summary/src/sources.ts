import {
  getTranscriptRpc,
  listGroupsRpc,
  listTranscriptsPageRpc,
  TRANSCRIPT_BLOB_BUCKET,
  type Group,
  type RpcResponse,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { call, ServiceError, type Bus } from '@chronicler/kit';
import type { SessionDigest } from '@chronicler/ai';
import { createHash } from 'node:crypto';

export type TranscriptWithContent = Omit<RpcResponse<typeof getTranscriptRpc>, 'content' | 'content_blob'> & {
  content: string;
};

/** One of the owner's sessions with its content, read through the blob store when it is large. */
export async function readTranscript(bus: Bus, ownerId: string, id: string): Promise<TranscriptWithContent> {
  const t = await call(bus, getTranscriptRpc, { owner_id: ownerId, id });
  const { content_blob, content, ...rest } = t;
  if (content_blob === undefined) return { ...rest, content: content ?? '' };
  const stream = await bus.blobs.get(TRANSCRIPT_BLOB_BUCKET, content_blob);
  if (!stream) throw new ServiceError('internal', `transcript blob ${content_blob} is missing`);
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  await bus.blobs.delete(TRANSCRIPT_BLOB_BUCKET, content_blob).catch(() => false);
  return { ...rest, content: Buffer.concat(chunks).toString('utf8') };
}

export async function findGroup(bus: Bus, ownerId: string, groupId: string): Promise<Group> {
  const groups = await call(bus, listGroupsRpc, { owner_id: ownerId });
  const group = groups.find((g) => g.id === groupId);
  if (!group) throw new ServiceError('not_found', 'Group not found');
  return group;
}

/** The group's sessions, read page by page (a whole list may exceed one bus message). */
export async function groupSessions(
  bus: Bus,
  ownerId: string,
  groupId: string,
): Promise<TranscriptListItem[]> {
  const items: TranscriptListItem[] = [];
  let after: string | undefined;
  do {
    const page = await call(bus, listTranscriptsPageRpc, { owner_id: ownerId, after });
    items.push(...page.items.filter((t) => t.group_id === groupId));
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
    digests: summarized.map((s) => ({ name: s.name, date: s.session_timestamp, summary: s.summary })),
    fingerprint,
  };
}
