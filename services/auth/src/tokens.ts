import { randomBytes, randomUUID } from 'node:crypto';
import { errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import type { AuthSettings } from './config.ts';
import type { AuthStore } from './db/store.ts';

/** Only this algorithm is accepted: `alg: none` and algorithm-confusion tokens fail. */
const ALGORITHMS = ['HS256'];

interface TokenClaims {
  /** User id. */
  sub: string;
  /** Session id: the server-side record that logout revokes. */
  sid: string;
  jti: string;
  /** Epoch seconds. */
  exp: number;
}

export type VerifiedToken = { claims: TokenClaims; expired: boolean };

/** Signs and checks our own tokens (HS256 JWTs with iss, aud, exp, jti and sid). */
export class TokenService {
  private constructor(
    private readonly key: Uint8Array,
    private readonly settings: AuthSettings,
  ) {}

  /**
   * With AUTH_JWT_SECRET, that; otherwise (embedded mode) a random secret generated once
   * and kept in the auth schema, so tokens and cookies survive a restart.
   */
  static async create(settings: AuthSettings, store: AuthStore): Promise<TokenService> {
    const secret =
      settings.raw.AUTH_JWT_SECRET ??
      (await store.settingOrInit('jwt_secret', randomBytes(48).toString('base64url')));
    return new TokenService(new TextEncoder().encode(secret), settings);
  }

  /** A token for the session, never outliving it. */
  async sign(
    userId: string,
    sessionId: string,
    sessionExpiresAt: Date,
  ): Promise<{ token: string; exp: number }> {
    const now = Math.floor(Date.now() / 1000);
    const exp = Math.min(now + this.settings.tokenTtlSeconds, Math.floor(sessionExpiresAt.getTime() / 1000));
    const token = await new SignJWT({ sid: sessionId })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(userId)
      .setIssuer(this.settings.raw.AUTH_JWT_ISSUER)
      .setAudience(this.settings.raw.AUTH_JWT_AUDIENCE)
      .setIssuedAt(now)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(this.key);
    return { token, exp };
  }

  /**
   * Checks signature, algorithm, issuer and audience. An expired token with everything
   * else right is answered with `expired: true` (its session may still renew it); any
   * other failure gives null.
   */
  async verify(token: string): Promise<VerifiedToken | null> {
    try {
      const { payload } = await jwtVerify(token, this.key, {
        algorithms: ALGORITHMS,
        issuer: this.settings.raw.AUTH_JWT_ISSUER,
        audience: this.settings.raw.AUTH_JWT_AUDIENCE,
        requiredClaims: ['sub', 'sid', 'exp', 'jti'],
      });
      return toClaims(payload, false);
    } catch (err) {
      // jose checks the signature, then issuer and audience, and expiry last: an expired
      // error means the rest passed, and its payload is authentic.
      if (err instanceof errors.JWTExpired) return toClaims(err.payload, true);
      return null;
    }
  }
}

function toClaims(payload: JWTPayload, expired: boolean): VerifiedToken | null {
  const { sub, sid, jti, exp } = payload as JWTPayload & { sid?: unknown };
  if (
    typeof sub !== 'string' ||
    typeof sid !== 'string' ||
    typeof jti !== 'string' ||
    typeof exp !== 'number'
  ) {
    return null;
  }
  return { claims: { sub, sid, jti, exp }, expired };
}
