import { readRecap, type CampaignContext, type SpeakerCharacter } from '@chronicler/ai';
import { getCodexRpc, withoutOfflineMarker, type Transcript } from '@chronicler/contracts';
import { call, type Bus } from '@chronicler/kit';
import { findGroup, groupSessions } from './sources.ts';

/** Names and open threads a campaign's codex holds, for a session's recap. */
export type CodexSource = (
  bus: Bus,
  ownerId: string,
  groupId: string,
) => Promise<{ names: string[]; threads: string[] }>;

/**
 * The codex the group service keeps (`svc.group.codex`), as the game master left it: hidden entries
 * out, the most mentioned first, threads apart. A codex that cannot be read leaves the recap to what
 * the previous session established: a recap is never refused for want of it.
 */
const groupCodex: CodexSource = async (bus, ownerId, groupId) => {
  try {
    const { entries } = await call(bus, getCodexRpc, { owner_id: ownerId, id: groupId, audience: 'gm' });
    const shown = entries.filter((e) => !e.hidden).sort((a, b) => b.mention_count - a.mention_count);
    return {
      names: shown.filter((e) => e.kind !== 'thread').map((e) => e.name),
      threads: shown.filter((e) => e.kind === 'thread').map((e) => e.name),
    };
  } catch {
    return { names: [], threads: [] };
  }
};

/** Names the context keeps at most (the model is told them within its budget anyway). */
const MAX_NAMES = 80;

/**
 * What a session's recap should know of its campaign: the party (Who Is Who), the names and the
 * open threads of the previous session's recap and of the codex, and that recap's story. None
 * for an ungrouped session. The previous session is the latest one of the group before this one
 * that has a summary.
 */
export async function campaignContext(
  bus: Bus,
  ownerId: string,
  t: Pick<Transcript, 'id' | 'group_id' | 'session_timestamp'>,
  characters: SpeakerCharacter[],
  codex: CodexSource = groupCodex,
): Promise<CampaignContext | undefined> {
  if (!t.group_id) return undefined;
  const [group, sessions, known] = await Promise.all([
    findGroup(bus, ownerId, t.group_id),
    groupSessions(bus, ownerId, t.group_id),
    codex(bus, ownerId, t.group_id),
  ]);
  const previous = sessions
    .filter((s) => s.id !== t.id && s.summary.trim() && s.session_timestamp < t.session_timestamp)
    .sort((a, b) => b.session_timestamp.localeCompare(a.session_timestamp))[0];
  const facts = previous ? readRecap(withoutOfflineMarker(previous.summary)) : null;
  const names = [
    ...characters.flatMap((c) => [c.character, c.speaker]),
    ...known.names,
    ...(facts?.names ?? []),
  ];
  const seen = new Set<string>();
  const knownNames = names.filter((n) => {
    const key = n.trim().toLowerCase();
    if (!key || seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return {
    name: group.name,
    knownNames: knownNames.slice(0, MAX_NAMES),
    openThreads: [...new Set([...known.threads, ...(facts?.threads ?? [])])],
    previous: previous
      ? {
          name: previous.name,
          date: previous.session_timestamp,
          recap: facts?.story || withoutOfflineMarker(previous.summary),
        }
      : undefined,
  };
}
