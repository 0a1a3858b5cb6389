import { ServiceError } from '@chronicler/kit';
import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import type { AuthSettings } from './config.ts';
import type { ProviderProfile } from './db/tables.ts';

export type GoogleIdTokenVerifier = (idToken: string) => Promise<ProviderProfile>;

/**
 * Verifies Google ID tokens: RS256 signature against Google's published keys (fetched
 * and cached by jose, refetched when a token names an unknown key), issuer, audience =
 * our client id, expiry. Throws ServiceError `unauthorized` for a token that fails, and
 * `unavailable` when Google's keys cannot be fetched.
 */
export function googleVerifier(settings: AuthSettings): GoogleIdTokenVerifier {
  const jwks = createRemoteJWKSet(new URL(settings.raw.GOOGLE_JWKS_URL), {
    timeoutDuration: settings.raw.OAUTH_HTTP_TIMEOUT_MS,
  });
  return async (idToken) => {
    const google = settings.google;
    if (!google) throw new ServiceError('forbidden', 'Google sign-in is not configured');
    let payload;
    try {
      ({ payload } = await jwtVerify(idToken, jwks, {
        algorithms: ['RS256'],
        issuer: settings.googleIssuers,
        audience: google.clientId,
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (err) {
      if (err instanceof errors.JWKSTimeout || err instanceof errors.JWKSInvalid || isFetchFailure(err)) {
        throw new ServiceError(
          'unavailable',
          'Google sign-in is unavailable right now. Please try again later.',
        );
      }
      throw new ServiceError('unauthorized', 'Invalid Google credential');
    }
    const claims = payload as Record<string, unknown>;
    const email = typeof claims.email === 'string' && claims.email_verified === true ? claims.email : null;
    const name =
      typeof claims.name === 'string' && claims.name.trim() ? claims.name.trim() : (email ?? 'Google user');
    return {
      provider: 'google',
      subject: String(payload.sub),
      username: name,
      avatar: typeof claims.picture === 'string' ? claims.picture : null,
      email,
    };
  };
}

/** jose lets fetch's own errors through (connection refused, DNS) and uses JOSEError for HTTP ones. */
function isFetchFailure(err: unknown): boolean {
  if (err instanceof errors.JOSEError)
    return err.code === 'ERR_JOSE_GENERIC' && /fetch|response/i.test(err.message);
  return err instanceof TypeError;
}
