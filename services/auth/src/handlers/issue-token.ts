import { ServiceError } from '@chronicler/kit';
import type { AuthDeps } from '../sessions.ts';

/** svc.auth.issue-token: a fresh token for a live session. */
export const issueToken =
  ({ store, tokens }: AuthDeps) =>
  async (req: { session_id: string }): Promise<{ token: string; session_expires_at: string }> => {
    const live = await store.liveSession(req.session_id);
    if (!live) throw new ServiceError('unauthorized', 'Authentication required');
    const end = new Date(live.session.expires_at);
    const { token } = await tokens.sign(live.user.id, live.session.id, end);
    return { token, session_expires_at: end.toISOString() };
  };
