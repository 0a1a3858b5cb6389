import { liveMsgId, liveSessionHeartbeatKey, liveSubject, type LiveSessionEnd } from '@chronicler/contracts';
import { type Bus, type Coordination, type DatabaseHandle, type Logger } from '@chronicler/kit';
import { Type, type Static } from '@sinclair/typebox';
import { lockedSweep } from './locked-sweep.ts';

/** Part of the transcript service's configuration (see service.ts). */
export const StaleSessionsConfigSchema = Type.Object({
  /**
   * A live session with no stored line and no bot heartbeat for this long is ended (and then
   * summarised): a feed that stopped (a replay killed, a bot that never came back). A bot that
   * holds its session keeps it open through a long break at the table by its heartbeat.
   */
  LIVE_SESSION_STALE_MINUTES: Type.Number({ default: 3, minimum: 0.01 }),
});

/** Most sessions one sweep ends; the next sweep takes the rest. */
const BATCH = 100;
const LOCK_KEY = 'transcript:stale-live-sessions';

/**
 * Ends live sessions whose bot vanished (crashed and never came back, its shard moved, its
 * machine gone): no line stored and no voice-bot heartbeat (liveSessionHeartbeatKey, refreshed
 * by the replica holding the session) for LIVE_SESSION_STALE_MINUTES. It publishes the end
 * the bot would have, through the LIVE stream, so the live consumer closes the session, tells
 * the viewers and has it summarised, exactly as for a bot's own end. A periodic sweep, run by
 * one replica at a time: whoever takes the lock sweeps, and keeps the lock until the next
 * sweep is due, so the others skip it.
 */
export function startStaleSessionSweep(opts: {
  bus: Bus;
  db: DatabaseHandle;
  schema: string;
  coord: Coordination;
  logger: Logger;
  config: Static<typeof StaleSessionsConfigSchema>;
}): { stop(): void; sweep(): Promise<number> } {
  const { LIVE_SESSION_STALE_MINUTES: minutes } = opts.config;
  const staleMs = Math.round(minutes * 60_000);
  const everyMs = Math.max(250, Math.min(60_000, Math.floor(staleMs / 4)));
  const log = opts.logger.child({ component: 'stale-live-sessions' });
  const sessions = `"${opts.schema}".live_sessions`;
  const transcripts = `"${opts.schema}".transcripts`;

  async function sweep(): Promise<number> {
    const rows = await opts.db.query<{ transcript_id: string; final_count: number | string }>(
      `select s.transcript_id, s.final_count from ${sessions} s
         join ${transcripts} t on t.id = s.transcript_id
        where s.ended_at is null
          and greatest(t.last_activity, s.started_at) < now() - make_interval(secs => $1)
        order by s.started_at
        limit ${BATCH}`,
      [staleMs / 1000],
    );
    let ended = 0;
    for (const row of rows) {
      const tid = String(row.transcript_id);
      // A bot that still holds the session (a long silence at the table) keeps it open.
      if ((await opts.coord.cache.get(liveSessionHeartbeatKey(tid))) !== undefined) continue;
      const end: LiveSessionEnd = {
        transcript_id: tid,
        ended_at: new Date().toISOString(),
        final_count: Number(row.final_count),
        error: `Ended after ${formatMinutes(minutes)} without activity: the voice bot stopped sending.`,
      };
      await opts.bus.publishDurable(liveSubject.end(tid), end, { msgId: liveMsgId.end(tid) });
      ended++;
      log.warn(
        { transcriptId: tid, finals: end.final_count, staleMinutes: minutes },
        'stale live session ended',
      );
    }
    return ended;
  }

  const timer = lockedSweep({
    coord: opts.coord,
    lockKey: LOCK_KEY,
    everyMs,
    sweep,
    log,
    failed: 'stale live session sweep failed',
  });
  return { stop: timer.stop, sweep };
}

const formatMinutes = (m: number): string =>
  m >= 1 && Number.isInteger(m) ? `${m} minute${m === 1 ? '' : 's'}` : `${Math.round(m * 60)} seconds`;
