import type { VerifySessionResult } from '@chronicler/contracts';
import { toAuthUser, type AuthDeps } from '../sessions.ts';

/**
 * svc.auth.verify-session: an access token is good when it verifies (HS256 only, iss, aud,
 * exp) and its session is neither revoked nor expired. An expired token is refused however
 * it came (header, cookie, socket): a new one comes only from the refresh credential, so a
 * token that leaked stops at its own expiry.
 */
export const verifySession =
  ({ settings, store, tokens }: AuthDeps) =>
  async (req: { token: string }): Promise<VerifySessionResult> => {
    const verified = await tokens.verify(req.token);
    if (!verified || verified.expired) return { valid: false };
    const live = await store.liveSession(verified.claims.sid);
    if (!live || live.user.id !== verified.claims.sub) return { valid: false };
    const sessionEnd = new Date(live.session.expires_at);
    return {
      valid: true,
      user: toAuthUser(live.user, settings),
      session_id: live.session.id,
      valid_until: Math.min(verified.claims.exp * 1000, sessionEnd.getTime()),
      session_expires_at: sessionEnd.toISOString(),
    };
  };
