import {
  usersByIdsRpc,
  type AdminAiRequests,
  type RpcRequest,
  type adminAiRequestsRpc,
} from '@chronicler/contracts';
import { call, type Bus, type Logger } from '@chronicler/kit';
import type { UsageStore } from '../db/store.ts';

/**
 * svc.admin-stats.ai-requests: the newest `limit` AI requests (bounded by the contract), with
 * the name and email of whoever made them from the auth service in one call. When auth does
 * not answer, the requests are still listed, without names.
 */
export const aiRequests =
  (store: UsageStore, bus: Bus, logger: Logger) =>
  async (req: RpcRequest<typeof adminAiRequestsRpc>): Promise<AdminAiRequests> => {
    const rows = await store.recentAiRequests(req.limit);
    const ids = [...new Set(rows.map((r) => r.user_id))];
    const users = new Map<string, { username: string; email: string | null }>();
    if (ids.length > 0) {
      try {
        for (const u of (await call(bus, usersByIdsRpc, { ids })).users) users.set(u.id, u);
      } catch (err) {
        logger.warn({ err }, 'AI requests listed without user names: auth did not answer');
      }
    }
    return {
      status: 'success',
      ai_requests: rows.map((r) => ({
        _id: r.record_id,
        user_id: r.user_id,
        username: users.get(r.user_id)?.username ?? null,
        email: users.get(r.user_id)?.email ?? null,
        request_type: r.request_type,
        model: r.model,
        input_tokens: r.input_tokens,
        output_tokens: r.output_tokens,
        estimated_cost_usd: r.estimated_cost_usd,
        success: r.success,
        processing_time_ms: r.processing_time_ms,
        created_at: r.created_at,
      })),
    };
  };
