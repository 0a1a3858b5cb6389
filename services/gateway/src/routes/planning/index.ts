import {
  PLANNING_SEND_TIMEOUT_MS,
  PlanningClientFrameSchema,
  planningHistoryRpc,
  planningSendRpc,
  type PlanningClientFrame,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import type { FastifyInstance } from 'fastify';
import { registerRelaySocket } from '../../lib/relay-socket.ts';

/** /api/ws/planning?token=&group_id= (token: a one-time socket code): the planning chat of one of the user's groups. */
export default async function planningRoutes(app: FastifyInstance): Promise<void> {
  const bus = app.ctx.bus;
  registerRelaySocket(app, {
    path: '/ws/planning',
    idParam: 'group_id',
    frameSchema: PlanningClientFrameSchema,
    history: async (user, groupId) =>
      (await call(bus, planningHistoryRpc, { owner_id: user.id, group_id: groupId })).messages,
    answer: (user, groupId, frame: PlanningClientFrame) =>
      call(
        bus,
        planningSendRpc,
        {
          owner_id: user.id,
          group_id: groupId,
          content: frame.content,
          editor: {
            content: frame.canvasContent ?? '',
            selection: frame.selection ?? null,
            selectedText: frame.selectedText ?? '',
          },
        },
        { timeoutMs: PLANNING_SEND_TIMEOUT_MS },
      ),
  });
}
