import type { ActiveSession } from '@chronicler/contracts';
import type { TranscriptStore } from '../db/store.ts';

/**
 * svc.transcript.list-active: the owner's sessions whose status is 'active'. Until the live
 * pipeline keeps its own live sessions, a session is identified by its transcript id and
 * its counters are zero; the live service will answer with its real session ids and counts.
 */
export const listActive =
  (store: TranscriptStore) =>
  async (req: { owner_id: string }): Promise<ActiveSession[]> =>
    (await store.listActive(req.owner_id)).map((row) => ({
      session_id: row.id,
      transcript_id: row.id,
      start_time: row.session_timestamp,
      created_at: row.created_at,
      last_activity: row.last_activity,
      is_active: true as const,
      final_results: 0,
      interim_results: 0,
      connected_clients: 0,
    }));
