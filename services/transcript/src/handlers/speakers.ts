import {
  CHARACTER_NAME_MAX,
  getGroupCharactersRpc,
  inferCharacterMap,
  type getSpeakersRpc,
  type putSpeakersRpc,
  type RpcRequest,
  type SessionSpeakers,
  type SpeakerName,
} from '@chronicler/contracts';
import { call, type Bus, type Logger } from '@chronicler/kit';
import type { LiveStore } from '../db/live-store.ts';
import type { SpeakerNameStore } from '../db/speaker-names.ts';
import type { TranscriptStore } from '../db/store.ts';
import { rawSession, sessionLines } from '../tools/session-lines.ts';
import { assertNoNul, bad, transcriptNotFound } from '../validation.ts';

/** An inferred link weaker than this is a guess: not proposed as a name for a session's speaker. */
const PROPOSAL_CONFIDENCE_MIN = 0.5;

/**
 * Names for labels of this session that have none yet: the links the user set in the group's
 * Who Is Who map, then what this session's own lines say (who introduced themselves as whom),
 * when sure enough. Never the group's other sessions: a group holding two campaigns proposed
 * the other one's characters.
 */
async function proposals(
  bus: Bus,
  logger: Logger,
  ownerId: string,
  groupId: string,
  content: string,
  unnamed: string[],
): Promise<SpeakerName[]> {
  if (unnamed.length === 0) return [];
  const map = groupId
    ? await call(bus, getGroupCharactersRpc, { owner_id: ownerId, id: groupId, infer: false }).catch(
        (cause: unknown) => {
          // Suggestions are a help: the names themselves still answer without them.
          logger.warn({ err: cause, groupId }, 'no Who Is Who suggestions');
          return null;
        },
      )
    : null;
  const own = inferCharacterMap(content).filter((l) => l.confidence >= PROPOSAL_CONFIDENCE_MIN);
  const links = [...(map?.links ?? []), ...own];
  const out: SpeakerName[] = [];
  for (const label of unnamed) {
    const link = links.find((l) => l.speaker.toLowerCase() === label.toLowerCase());
    if (link) out.push({ label, name: link.character, character: link.character });
  }
  return out;
}

async function speakersOf(
  store: TranscriptStore,
  live: LiveStore,
  names: SpeakerNameStore,
  bus: Bus,
  logger: Logger,
  ownerId: string,
  id: string,
): Promise<SessionSpeakers> {
  const t = await rawSession(store, live, ownerId, id);
  const map = await names.map(id);
  const counts = new Map<string, number>();
  for (const line of sessionLines(t.content, map)) {
    if (line.speaker) counts.set(line.speaker, (counts.get(line.speaker) ?? 0) + 1);
  }
  // Names of labels no longer in the text (a line edit changed its speaker) stay listed.
  for (const label of map.keys()) if (!counts.has(label)) counts.set(label, 0);
  const speakers = [...counts.entries()].map(([label, lines]) => ({
    label,
    name: map.get(label)?.name ?? '',
    character: map.get(label)?.character ?? '',
    lines,
  }));
  const unnamed = speakers.filter((s) => !s.name && s.lines > 0).map((s) => s.label);
  return { speakers, proposals: await proposals(bus, logger, ownerId, t.group_id, t.content, unnamed) };
}

/** svc.transcript.get-speakers */
export const getSpeakers =
  (store: TranscriptStore, live: LiveStore, names: SpeakerNameStore, bus: Bus, logger: Logger) =>
  (req: RpcRequest<typeof getSpeakersRpc>): Promise<SessionSpeakers> =>
    speakersOf(store, live, names, bus, logger, req.owner_id, req.id);

/** The map as sent, trimmed and checked; labels with a blank name are left out (unnamed). */
function checkNames(entries: RpcRequest<typeof putSpeakersRpc>['speakers']): SpeakerName[] {
  const seen = new Set<string>();
  const out: SpeakerName[] = [];
  for (const raw of entries) {
    const label = raw.label.trim();
    const name = raw.name.trim();
    const character = (raw.character ?? '').trim();
    if (!label) throw bad('Speaker label cannot be empty.');
    if (seen.has(label)) throw bad(`The speaker ${label} is listed twice.`);
    seen.add(label);
    if ([label, name, character].some((v) => v.length > CHARACTER_NAME_MAX))
      throw bad(`Speaker names cannot exceed ${CHARACTER_NAME_MAX} characters`);
    if (/[:\r\n]/.test(name)) throw bad('A speaker name cannot contain a colon or a line break');
    assertNoNul(label + name + character, 'Speaker names');
    if (name) out.push({ label, name, character });
  }
  return out;
}

/** svc.transcript.put-speakers: replaces the session's names; the stored labels never change. */
export const putSpeakers =
  (store: TranscriptStore, live: LiveStore, names: SpeakerNameStore, bus: Bus, logger: Logger) =>
  async (req: RpcRequest<typeof putSpeakersRpc>): Promise<SessionSpeakers> => {
    if (!(await store.getItem(req.owner_id, req.id))) throw transcriptNotFound();
    const checked = checkNames(req.speakers);
    if (!(await names.replace(req.owner_id, req.id, checked))) throw transcriptNotFound();
    return speakersOf(store, live, names, bus, logger, req.owner_id, req.id);
  };
