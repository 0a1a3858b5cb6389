import { readRecap, type CampaignContext, type SpeakerCharacter } from '@chronicler/ai';
import { withoutOfflineMarker, type Transcript } from '@chronicler/contracts';
import type { Bus } from '@chronicler/kit';
import { findGroup, groupSessions } from './sources.ts';

/**
 * Names and open threads a campaign's codex holds, for a session's recap. The codex is kept by
 * another part of the system; until it is connected here, this one knows none.
 */
export type CodexSource = (
  bus: Bus,
  ownerId: string,
  groupId: string,
) => Promise<{ names: string[]; threads: string[] }>;

const noCodex: CodexSource = () => Promise.resolve({ names: [], threads: [] });

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
  codex: CodexSource = noCodex,
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
