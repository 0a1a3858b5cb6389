import { setGroupGeneratedSummaryRpc, type Group, type GroupSummaryCheck } from '@chronicler/contracts';
import { groupCharacters, type AiEngine } from '@chronicler/ai';
import { call, ServiceError, type Bus, type Coordination, type Lock, type Logger } from '@chronicler/kit';
import type { SummaryStore } from '../db/store.ts';
import { asServiceError } from '../errors.ts';
import { campaignInput, findGroup, groupSessions } from '../sources.ts';

/** Longer than one model call with its retries: a lost holder frees the group eventually. */
const LOCK_TTL_MS = 10 * 60 * 1000;
const lockKey = (groupId: string) => `summary:group:${groupId}`;
/** Set while a generation runs, so a check can tell "running" from "lost the race to start". */
const runningKey = (groupId: string) => `summary:group-running:${groupId}`;

const FORCED_WHILE_LOCKED = 'Summary generation already in progress for this group.';
const CHECK_WHILE_RUNNING = 'Summary generation already in progress.';
const CHECK_LOST_RACE = 'Summary generation already started by another request.';
export const UP_TO_DATE = 'Campaign summary is up to date.';
export const NO_SESSION_SUMMARIES = 'No session in this group has a summary yet.';

interface Deps {
  bus: Bus;
  coord: Coordination;
  engine: AiEngine;
  store: SummaryStore;
  /** SUMMARY_AUTOMATIC: false leaves campaign summaries to an admin's explicit request. */
  automatic: boolean;
  logger: Logger;
}

export const AUTOMATIC_OFF = 'Automatic summaries are turned off on this server.';

/** Generates and stores the campaign summary; the caller holds the group's lock. */
async function generateLocked(d: Deps, ownerId: string, group: Group, lock: Lock): Promise<Group> {
  await d.coord.cache.set(runningKey(group.id), lock.token, LOCK_TTL_MS);
  try {
    const { digests, fingerprint } = campaignInput(await groupSessions(d.bus, ownerId, group.id));
    if (digests.length === 0) throw new ServiceError('bad_request', NO_SESSION_SUMMARIES);
    let text: string;
    try {
      const characters = await groupCharacters(d.bus, ownerId, group.id);
      text = await d.engine.summarizeCampaign(
        { userId: ownerId, type: 'campaign_summary' },
        { name: group.name, sessions: digests, characters },
      );
    } catch (err) {
      throw asServiceError(err, d.logger.child({ group_id: group.id }));
    }
    const updated = await call(d.bus, setGroupGeneratedSummaryRpc, {
      owner_id: ownerId,
      id: group.id,
      summary: text,
      llm_summary: text,
    });
    await d.store.setFingerprint(ownerId, group.id, fingerprint);
    return updated;
  } finally {
    await d.coord.cache.del(runningKey(group.id)).catch(() => undefined);
    await lock.release().catch(() => false);
  }
}

/** svc.summary.generate-group: an admin's forced campaign summary. */
export const generateGroup =
  (d: Deps) =>
  async (req: { owner_id: string; id: string }): Promise<Group> => {
    const group = await findGroup(d.bus, req.owner_id, req.id);
    const lock = await d.coord.locks.acquire(lockKey(group.id), LOCK_TTL_MS);
    if (!lock) throw new ServiceError('conflict', FORCED_WHILE_LOCKED);
    return generateLocked(d, req.owner_id, group, lock);
  };

/** Whether the group's summary is due, with what it would be made from. */
async function due(d: Deps, ownerId: string, group: Group): Promise<boolean> {
  const { digests, fingerprint } = campaignInput(await groupSessions(d.bus, ownerId, group.id));
  if (digests.length === 0) return false;
  if (!group.summary.trim()) return true;
  // A summary written by hand (never generated) is the owner's: it is not replaced.
  if (group.summary_generated_at === null) return false;
  return (await d.store.fingerprint(ownerId, group.id)) !== fingerprint;
}

/**
 * svc.summary.check-due: whether the check the dashboard runs when it opens would replace the
 * campaign summary now; nothing is generated. The dashboard says so before the check runs when
 * the text is the owner's.
 */
export const checkDue =
  (d: Deps) =>
  async (req: { owner_id: string; id: string }): Promise<{ due: boolean }> => {
    const group = await findGroup(d.bus, req.owner_id, req.id);
    if (!d.automatic || (await d.coord.cache.get(runningKey(group.id)))) return { due: false };
    return { due: await due(d, req.owner_id, group) };
  };

/**
 * svc.summary.check-group: runs once per group when its dashboard opens. A summary is due
 * when the sessions' summaries changed since the last generated one, or when the group has
 * none and some session has one.
 */
export const checkGroup =
  (d: Deps) =>
  async (req: { owner_id: string; id: string }): Promise<GroupSummaryCheck> => {
    const answer = (g: Group, needs_update: boolean, message: string): GroupSummaryCheck => ({
      group_id: g.id,
      summary: g.summary,
      llm_summary: g.llm_summary,
      needs_update,
      message,
    });
    const group = await findGroup(d.bus, req.owner_id, req.id);
    if (!d.automatic) return answer(group, false, AUTOMATIC_OFF);
    if (await d.coord.cache.get(runningKey(group.id))) return answer(group, false, CHECK_WHILE_RUNNING);
    if (!(await due(d, req.owner_id, group))) return answer(group, false, UP_TO_DATE);
    const lock = await d.coord.locks.acquire(lockKey(group.id), LOCK_TTL_MS);
    if (!lock) return answer(group, false, CHECK_LOST_RACE);
    // Another request may have generated between the first look and the lock: look again.
    let current: Group;
    try {
      current = await findGroup(d.bus, req.owner_id, req.id);
      if (!(await due(d, req.owner_id, current))) {
        await lock.release().catch(() => false);
        return answer(current, false, CHECK_LOST_RACE);
      }
    } catch (err) {
      await lock.release().catch(() => false);
      throw err;
    }
    const updated = await generateLocked(d, req.owner_id, current, lock);
    return answer(updated, true, 'Campaign summary updated.');
  };
