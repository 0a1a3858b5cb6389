import { getGroupCharactersRpc, type CharacterLink } from '@chronicler/contracts';
import { call, type Bus } from '@chronicler/kit';

/**
 * The speaker-to-character map the user set for a session's group (none for an ungrouped
 * session). The AI works without it (it infers one from the transcript), so a group service
 * that does not answer costs the map, not the request.
 */
export async function groupCharacters(bus: Bus, ownerId: string, groupId: string): Promise<CharacterLink[]> {
  if (!groupId) return [];
  try {
    const map = await call(bus, getGroupCharactersRpc, { owner_id: ownerId, id: groupId, infer: false });
    return map.links;
  } catch {
    return [];
  }
}
