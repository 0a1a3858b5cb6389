import type { VerifySessionResult } from '@chronicler/contracts';
import { toAuthUser, type AuthDeps } from '../sessions.ts';

/**
 * svc.auth.verify-session: a token is good when it verifies (HS256 only, iss, aud, exp)
 * and its session is neither revoked nor expired. A token past its own short expiry is
 * renewed only when the caller asks (`renew`, which the gateway sets for the cookie alone,
 * and then replaces the cookie): so the 7-day cookie keeps working, while a copied token
 * used as a bearer header or in a socket URL stops at its own expiry.
 */
export const verifySession =
  ({ settings, store, tokens }: AuthDeps) =>
  async (req: { token: string; renew?: boolean }): Promise<VerifySessionResult> => {
    const verified = await tokens.verify(req.token);
    if (!verified) return { valid: false };
    if (verified.expired && req.renew !== true) return { valid: false };
    const live = await store.liveSession(verified.claims.sid);
    if (!live || live.user.id !== verified.claims.sub) return { valid: false };
    const sessionEnd = new Date(live.session.expires_at);
    let tokenExp = verified.claims.exp;
    let reissued: string | undefined;
    if (verified.expired) {
      const fresh = await tokens.sign(live.user.id, live.session.id, sessionEnd);
      reissued = fresh.token;
      tokenExp = fresh.exp;
    }
    return {
      valid: true,
      user: toAuthUser(live.user, settings),
      session_id: live.session.id,
      valid_until: Math.min(tokenExp * 1000, sessionEnd.getTime()),
      session_expires_at: sessionEnd.toISOString(),
      ...(reissued ? { reissued_token: reissued } : {}),
    };
  };
