import { sessionRevokedEvent, type BusEventPayload, type SignIn } from '@chronicler/contracts';
import { ServiceError, type Bus, type Logger } from '@chronicler/kit';
import { issueCredentials, secretHash, type AuthDeps } from '../sessions.ts';

/**
 * svc.auth.refresh-session: the refresh credential buys one new access token and one new
 * credential (rotation), while its session lives. A credential used a second time was
 * copied (the owner and someone else both hold it): the whole session is revoked, and every
 * gateway told, so neither holder keeps it.
 */
export const refreshSession =
  (deps: AuthDeps, bus: Bus, logger: Logger) =>
  async (req: { refresh_token: string }): Promise<SignIn> => {
    const refused = new ServiceError('unauthorized', 'Authentication required');
    const use = await deps.store.useRefreshToken(secretHash(req.refresh_token));
    if (use.status === 'unknown') throw refused;
    if (use.status === 'reused') {
      const revoked = await deps.store.revokeSession(use.sessionId);
      if (revoked) {
        logger.warn(
          { session_id: use.sessionId, user_id: revoked.user_id },
          'a used refresh credential came back: session revoked',
        );
        const event: BusEventPayload<typeof sessionRevokedEvent> = {
          session_id: use.sessionId,
          user_id: revoked.user_id,
        };
        await bus.publish(sessionRevokedEvent.subject, event);
      }
      throw refused;
    }
    const live = await deps.store.liveSession(use.sessionId);
    if (!live) throw refused;
    return issueCredentials(deps, live.user, live.session);
  };
