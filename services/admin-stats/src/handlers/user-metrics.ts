import {
  ADMIN_USER_METRICS_MAX,
  type AdminUserMetrics,
  type RpcRequest,
  type adminUserMetricsRpc,
} from '@chronicler/contracts';
import type { UsageStore } from '../db/store.ts';
import { round4 } from './days.ts';
import { statsWindow } from './user-stats.ts';

/**
 * svc.admin-stats.user-metrics: usage per user from `start` 00:00 UTC to the end of `end`
 * (checked and bounded like /users/stats: at most 366 days): the totals over everyone and
 * the busiest ADMIN_USER_METRICS_MAX users.
 */
export const userMetrics =
  (store: UsageStore) =>
  async (req: RpcRequest<typeof adminUserMetricsRpc>): Promise<AdminUserMetrics> => {
    const window = statsWindow(req.start, req.end);
    const { users, totals } = await store.usagePerUser(window, ADMIN_USER_METRICS_MAX);
    return {
      status: 'success',
      start: req.start,
      end: req.end,
      active_users: totals.users,
      ai_requests: totals.ai_requests,
      transcription_hours: round4(totals.seconds / 3600),
      estimated_cost_usd: round4(totals.estimated_cost_usd),
      users: users.map((u) => ({
        user_id: u.user_id,
        ai_requests: u.ai_requests,
        input_tokens: u.input_tokens,
        output_tokens: u.output_tokens,
        estimated_cost_usd: round4(u.estimated_cost_usd),
        transcription_hours: round4(u.seconds / 3600),
      })),
    };
  };
