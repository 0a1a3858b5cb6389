import {
  getCodexRpc,
  getGroupVocabularyRpc,
  liveSubject,
  LiveSessionStartSchema,
  LiveUtteranceSchema,
  parseLiveSubject,
  PREP_UPDATE_EVENT,
  prepMatches,
  type FanoutDelivery,
  type PrepItem,
  type PrepUpdate,
} from '@chronicler/contracts';
import { assertValid, call, ServiceError, type Bus, type Logger } from '@chronicler/kit';
import type { PrepStore } from '../db/prep-store.ts';

const QUOTE_MAX = 300;
/** How long a session found untracked is taken as such without asking the store again. */
const UNTRACKED_TTL_MS = 60_000;
/** Sessions remembered as untracked at most (the oldest are forgotten first). */
const UNTRACKED_MAX = 10_000;

/**
 * The live sessions this consumer has nothing to tick for (no campaign, or not the owner's),
 * so that their finals, most of the stream, cost no database read. Remembered for a minute:
 * a final that overtook its start (handled by another replica) finds the session once the
 * minute is over, and a session does not gain a campaign while it runs.
 */
export function untrackedSessions(now: () => number = Date.now) {
  const until = new Map<string, number>();
  return {
    has(transcriptId: string): boolean {
      const t = until.get(transcriptId);
      if (t === undefined) return false;
      if (t > now()) return true;
      until.delete(transcriptId);
      return false;
    },
    add(transcriptId: string): void {
      until.delete(transcriptId);
      until.set(transcriptId, now() + UNTRACKED_TTL_MS);
      if (until.size > UNTRACKED_MAX) until.delete(until.keys().next().value!);
    },
    forget(transcriptId: string): void {
      until.delete(transcriptId);
    },
    get size(): number {
      return until.size;
    },
  };
}

/**
 * LIVE (its own durable, beside the transcript service's and live-fanout's): a live session of
 * a group ticks the group's open prep items as they come up. A start names the session's group
 * (kept with the campaign's names: codex entries and aliases, vocabulary); each final, with the
 * line before it, is matched against the items still open; a tick is stored with its moment and
 * sent to the session's room on the live socket path (`fanout.<tid>`, event prep_update), where
 * the planning page and the live viewer of the session listen. Redelivery is harmless: a tick only changes an open item.
 */
export function onLivePrep(
  store: PrepStore,
  bus: Bus,
  logger: Logger,
  untracked = untrackedSessions(),
) {
  return async (payload: unknown, meta: { subject: string }): Promise<void> => {
    const live = parseLiveSubject(meta.subject);
    if (live?.kind === 'start') {
      assertValid(LiveSessionStartSchema, payload, 'live session start');
      if (!payload.group_id) {
        untracked.add(payload.transcript_id);
        return;
      }
      let names: string[];
      try {
        const owned = { owner_id: payload.owner_id, id: payload.group_id };
        // The campaign's names: its codex (names and aliases) and its vocabulary.
        const [codex, v] = await Promise.all([
          call(bus, getCodexRpc, { ...owned, hidden: true }),
          call(bus, getGroupVocabularyRpc, owned),
        ]);
        names = [
          ...new Set([...codex.entries.flatMap((e) => [e.name, ...e.aliases]), ...v.terms, ...v.learned]),
        ].slice(0, 2000);
      } catch (err) {
        // Not the owner's group (or no such group): nothing of a group to tick.
        if (ServiceError.is(err) && err.code === 'not_found') {
          untracked.add(payload.transcript_id);
          return;
        }
        throw err;
      }
      untracked.forget(payload.transcript_id);
      await store.sessionStarted({
        transcript_id: payload.transcript_id,
        owner_id: payload.owner_id,
        group_id: payload.group_id,
        started_at: payload.started_at,
        names,
      });
    } else if (live?.kind === 'final') {
      assertValid(LiveUtteranceSchema, payload, 'live final utterance');
      const text = payload.text.replace(/\s+/g, ' ').trim();
      if (!text || untracked.has(payload.transcript_id)) return;
      const session = await store.session(payload.transcript_id);
      if (!session) {
        untracked.add(payload.transcript_id);
        return;
      }
      const open = await store.open(session.owner_id, session.group_id);
      // Nothing left to tick: no write per line (the line kept for the next match is not needed).
      if (open.length === 0) return;
      const heard = `${session.recent} ${text}`;
      const ticked: PrepItem[] = [];
      for (const item of open) {
        if (!prepMatches(item.text, heard, session.names)) continue;
        const done = await store.tick(item.id, {
          transcript_id: session.transcript_id,
          seconds: payload.start_seconds,
          timestamp: new Date(Date.parse(session.started_at) + payload.start_seconds * 1000).toISOString(),
          speaker: payload.speaker_info?.displayName ?? String(payload.speaker_tag),
          quote: text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX - 1)}…` : text,
        });
        if (done) ticked.push(done);
      }
      await store.setRecent(session.transcript_id, text);
      if (ticked.length === 0) return;
      logger.info({ transcriptId: session.transcript_id, ticked: ticked.length }, 'prep items came up');
      const update: PrepUpdate = {
        group_id: session.group_id,
        transcript_id: session.transcript_id,
        items: ticked,
      };
      const delivery: FanoutDelivery = {
        transcript_id: session.transcript_id,
        event: PREP_UPDATE_EVENT,
        payload: update,
      };
      // The tick is stored: a viewer that misses this delivery reads it with GET .../prep.
      await bus.publish(liveSubject.fanout(session.transcript_id), delivery).catch((err: unknown) => {
        logger.warn({ err, transcriptId: session.transcript_id }, 'prep update not delivered live');
      });
    } else if (live?.kind === 'end') {
      untracked.forget(live.transcriptId);
      await store.sessionEnded(live.transcriptId);
    }
  };
}
