import {
  CHARACTER_LINKS_MAX,
  CHARACTER_NAME_MAX,
  getTranscriptRpc,
  inferCharacterMap,
  listTranscriptsPageRpc,
  type CharacterLink,
  type GroupCharacters,
  type getGroupCharactersRpc,
  type InferredCharacterLink,
  type putGroupCharactersRpc,
  type RpcRequest,
} from '@chronicler/contracts';
import { call, type Bus } from '@chronicler/kit';
import type { CharacterStore } from '../db/characters-store.ts';
import { bad, groupNotFound } from './group-errors.ts';

/** Suggestions are read from this many of the group's latest sessions. */
const INFER_SESSIONS = 3;

/** The user's links, trimmed and checked: names present and short, one character per speaker. */
function checkCharacterLinks(links: CharacterLink[]): CharacterLink[] {
  if (links.length > CHARACTER_LINKS_MAX)
    throw bad(`A character map holds at most ${CHARACTER_LINKS_MAX} links`);
  const out: CharacterLink[] = [];
  const seen = new Set<string>();
  for (const raw of links) {
    const speaker = raw.speaker.trim();
    const character = raw.character.trim();
    if (!speaker || !character) throw bad('Speaker and character cannot be empty.');
    if (speaker.length > CHARACTER_NAME_MAX || character.length > CHARACTER_NAME_MAX) {
      throw bad(`Speaker and character names cannot exceed ${CHARACTER_NAME_MAX} characters`);
    }
    if ((speaker + character).includes('\u0000')) throw bad('Names cannot contain NUL characters');
    const key = speaker.toLowerCase();
    if (seen.has(key)) throw bad(`The speaker ${speaker} is listed twice.`);
    seen.add(key);
    out.push({ speaker, character });
  }
  return out;
}

/** What the group's latest sessions suggest, for the speakers the user's links leave out. */
async function inferred(
  bus: Bus,
  ownerId: string,
  groupId: string,
  links: CharacterLink[],
): Promise<InferredCharacterLink[]> {
  const page = await call(bus, listTranscriptsPageRpc, { owner_id: ownerId, group_id: groupId, limit: 500 });
  const latest = [...page.items]
    .sort((a, b) => b.session_timestamp.localeCompare(a.session_timestamp))
    .slice(0, INFER_SESSIONS);
  const contents = await Promise.all(
    latest.map((t) =>
      call(bus, getTranscriptRpc, { owner_id: ownerId, id: t.id, raw: true })
        .then((full) => full.content)
        .catch(() => ''),
    ),
  );
  const speakers = new Set(links.map((l) => l.speaker.toLowerCase()));
  const characters = new Set(links.map((l) => l.character.toLowerCase()));
  return inferCharacterMap(contents.join('\n')).filter(
    (l) => !speakers.has(l.speaker.toLowerCase()) && !characters.has(l.character.toLowerCase()),
  );
}

/** svc.group.get-characters: the user's map and, unless `infer` is false, suggestions. */
export const getCharacters =
  (store: CharacterStore, bus: Bus) =>
  async (req: RpcRequest<typeof getGroupCharactersRpc>): Promise<GroupCharacters> => {
    const links = await store.get(req.owner_id, req.id);
    if (!links) throw groupNotFound();
    return {
      group_id: req.id,
      links,
      inferred: req.infer === false ? [] : await inferred(bus, req.owner_id, req.id, links),
    };
  };

/** svc.group.put-characters: replaces the user's map (checked, see checkCharacterLinks). */
export const putCharacters =
  (store: CharacterStore, bus: Bus) =>
  async (req: RpcRequest<typeof putGroupCharactersRpc>): Promise<GroupCharacters> => {
    // Another owner's group is not found whatever the links: checked before the links are.
    if (!(await store.get(req.owner_id, req.id))) throw groupNotFound();
    const links = checkCharacterLinks(req.links);
    if (!(await store.set(req.owner_id, req.id, links))) throw groupNotFound();
    return { group_id: req.id, links, inferred: await inferred(bus, req.owner_id, req.id, links) };
  };
