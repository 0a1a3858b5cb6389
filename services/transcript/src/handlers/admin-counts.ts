import {
  TRANSCRIPT_COUNTS_MAX_DAYS,
  type RpcRequest,
  type RpcResponse,
  type transcriptAdminCountsRpc,
} from '@chronicler/contracts';
import { ServiceError, type Queryable } from '@chronicler/kit';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * svc.transcript.admin-counts: every transcript, and those created per UTC day since
 * `since_day` (the admin dashboard's Total Transcripts and 'Sessions in Last 7 Days'). Two
 * aggregates answering one number and at most 32 rows; neither reads any content.
 */
export const adminCounts =
  (db: Queryable, schema: string, now: () => number = Date.now) =>
  async (
    req: RpcRequest<typeof transcriptAdminCountsRpc>,
  ): Promise<RpcResponse<typeof transcriptAdminCountsRpc>> => {
    const since = Date.parse(`${req.since_day}T00:00:00.000Z`);
    if (!Number.isFinite(since) || new Date(since).toISOString().slice(0, 10) !== req.since_day) {
      throw new ServiceError('bad_request', 'since_day is not a date');
    }
    if (now() - since > TRANSCRIPT_COUNTS_MAX_DAYS * DAY_MS) {
      throw new ServiceError('bad_request', `since_day is more than ${TRANSCRIPT_COUNTS_MAX_DAYS} days back`);
    }
    const table = `"${schema}".transcripts`;
    const [total, perDay] = await Promise.all([
      db.query<{ n: number | string }>(`select count(*) as n from ${table}`),
      db.query<{ date: string; n: number | string }>(
        `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as date, count(*) as n
           from ${table} where created_at >= $1 group by 1 order by 1`,
        [new Date(since).toISOString()],
      ),
    ]);
    return {
      total: Number(total[0]?.n ?? 0),
      created_per_day: perDay.slice(0, TRANSCRIPT_COUNTS_MAX_DAYS + 1).map((r) => ({
        date: r.date,
        count: Number(r.n),
      })),
    };
  };
