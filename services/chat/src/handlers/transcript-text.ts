import { getTranscriptRpc } from '@chronicler/contracts';
import { call, type Bus } from '@chronicler/kit';

/**
 * One of the owner's transcripts, name and text. Another user's (or no) transcript fails with
 * the transcript service's not_found.
 */
export async function transcriptText(
  bus: Bus,
  ownerId: string,
  transcriptId: string,
): Promise<{ name: string; text: string; groupId: string }> {
  const t = await call(bus, getTranscriptRpc, { owner_id: ownerId, id: transcriptId });
  return { name: t.name, text: t.content, groupId: t.group_id };
}
