import {
  getGroupCharactersRpc,
  getGroupRpc,
  groupSpotlight,
  sessionSpotlight,
  type CharacterLink,
  type GroupSpotlight,
  type groupSpotlightRpc,
  type RpcRequest,
  type SessionSpotlight,
  type sessionSpotlightRpc,
} from '@chronicler/contracts';
import { call, ServiceError, type Bus, type Logger } from '@chronicler/kit';
import type { LiveStore } from '../db/live-store.ts';
import type { SpeakerNameStore } from '../db/speaker-names.ts';
import type { TranscriptStore } from '../db/store.ts';
import { rawSession } from '../tools/session-lines.ts';
import { groupSessions } from './export.ts';

export interface SpotlightDeps {
  store: TranscriptStore;
  live: LiveStore;
  names: SpeakerNameStore;
  bus: Bus;
  logger: Logger;
}

/** The campaign's Who Is Who links as the user set them (none when the group cannot say). */
async function whoIsWho(d: SpotlightDeps, ownerId: string, groupId: string): Promise<CharacterLink[]> {
  if (!groupId) return [];
  const map = await call(d.bus, getGroupCharactersRpc, {
    owner_id: ownerId,
    id: groupId,
    infer: false,
  }).catch((cause: unknown) => {
    // The characters help tell the game master apart; the figures still answer without them.
    d.logger.warn({ err: cause, groupId }, 'spotlight without the Who Is Who map');
    return null;
  });
  return map?.links ?? [];
}

async function spotlightOf(
  d: SpotlightDeps,
  ownerId: string,
  id: string,
  links?: CharacterLink[],
): Promise<SessionSpotlight> {
  const t = await rawSession(d.store, d.live, ownerId, id);
  return sessionSpotlight({
    transcript_id: t.id,
    name: t.name,
    session_timestamp: t.session_timestamp,
    content: t.content,
    names: await d.names.map(t.id),
    links: links ?? (await whoIsWho(d, ownerId, t.group_id)),
  });
}

/** svc.transcript.spotlight: one of the owner's sessions (a live one: its lines so far). */
export const getSessionSpotlight =
  (d: SpotlightDeps) =>
  (req: RpcRequest<typeof sessionSpotlightRpc>): Promise<SessionSpotlight> =>
    spotlightOf(d, req.owner_id, req.id);

/** svc.transcript.group-spotlight: every session of one of the owner's campaigns, in the order of play. */
export const getGroupSpotlight =
  (d: SpotlightDeps) =>
  async (req: RpcRequest<typeof groupSpotlightRpc>): Promise<GroupSpotlight> => {
    // The group service answers not_found for another owner's group.
    const group = await call(d.bus, getGroupRpc, { owner_id: req.owner_id, id: req.id });
    const links = await whoIsWho(d, req.owner_id, group.id);
    const sessions: SessionSpotlight[] = [];
    for (const s of await groupSessions(d.store, req.owner_id, group.id)) {
      try {
        sessions.push(await spotlightOf(d, req.owner_id, s.id, links));
      } catch (cause) {
        // Deleted between the list and the read: not part of the campaign any more.
        if (!(cause instanceof ServiceError && cause.code === 'not_found')) throw cause;
      }
    }
    return groupSpotlight(group.id, sessions);
  };
