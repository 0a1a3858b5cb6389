import { sessionRevokedEvent, type BusEventPayload } from '@chronicler/contracts';
import type { Bus } from '@chronicler/kit';
import type { AuthDeps } from '../sessions.ts';

/**
 * svc.auth.revoke-session (logout): revokes the token's session and tells every gateway,
 * which drop their cached checks of it. A token past its expiry still names its session,
 * so logging out with it still ends the session.
 */
export const revokeSession =
  ({ store, tokens }: AuthDeps, bus: Bus) =>
  async (req: { token: string }): Promise<{ revoked: boolean; session_id: string | null }> => {
    const verified = await tokens.verify(req.token);
    if (!verified) return { revoked: false, session_id: null };
    const revoked = await store.revokeSession(verified.claims.sid);
    if (revoked) {
      const event: BusEventPayload<typeof sessionRevokedEvent> = {
        session_id: verified.claims.sid,
        user_id: revoked.user_id,
      };
      await bus.publish(sessionRevokedEvent.subject, event);
    }
    return { revoked: Boolean(revoked), session_id: verified.claims.sid };
  };
