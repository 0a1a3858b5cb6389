import type { ActiveSession } from '@chronicler/contracts';
import type { LiveStore } from '../db/live-store.ts';
import type { TranscriptStore } from '../db/store.ts';

/**
 * svc.transcript.list-active: the owner's sessions whose status is 'active', with the live
 * session's counters (lines stored, interims the pipeline sent). The session id is the
 * transcript id: one recording makes one transcript. Connected viewers are counted by the
 * gateway, which holds the sockets.
 */
export const listActive =
  (store: TranscriptStore, live: LiveStore) =>
  async (req: { owner_id: string }): Promise<ActiveSession[]> => {
    const [rows, counters] = await Promise.all([store.listActive(req.owner_id), live.counters(req.owner_id)]);
    return rows.map((row) => {
      const c = counters.get(row.id);
      return {
        session_id: row.id,
        transcript_id: row.id,
        start_time: c?.startedAt ?? row.session_timestamp,
        created_at: row.created_at,
        last_activity: row.last_activity,
        is_active: true as const,
        final_results: c?.finals ?? 0,
        interim_results: c?.interims ?? 0,
        connected_clients: 0,
      };
    });
  };
