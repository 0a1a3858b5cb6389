import type { OAuthCallbackRequest, OAuthSignInResult } from '@chronicler/contracts';
import { ServiceError, type Logger } from '@chronicler/kit';
import type { GoogleIdTokenVerifier } from '../google.ts';
import { exchangeCode, OAuthFailure } from '../oauth.ts';
import { signIn, type AuthDeps } from '../sessions.ts';

/** svc.auth.sign-in-google-code: Google's redirect flow; the ID token is verified like a GSI credential. */
export const signInGoogleCode =
  (deps: AuthDeps, verify: GoogleIdTokenVerifier, logger: Logger) =>
  async (req: OAuthCallbackRequest): Promise<OAuthSignInResult> => {
    try {
      const google = deps.settings.google;
      if (!google?.clientSecret)
        throw new OAuthFailure('not_configured', 'Google redirect sign-in is not configured');
      const stored = req.state ? await deps.store.consumeOAuthState(req.state, 'google') : undefined;
      if (req.error) {
        throw new OAuthFailure(
          req.error === 'access_denied' ? 'access_denied' : 'provider_error',
          `Google said ${req.error}`,
        );
      }
      if (!stored) throw new OAuthFailure('invalid_state', 'unknown, expired or reused state');
      if (!req.code) throw new OAuthFailure('provider_error', 'callback without a code');
      const grant = await exchangeCode(deps.settings.raw.GOOGLE_TOKEN_URL, {
        code: req.code,
        redirectUri: stored.redirect_uri,
        verifier: stored.code_verifier,
        clientId: google.clientId,
        clientSecret: google.clientSecret,
        timeoutMs: deps.settings.raw.OAUTH_HTTP_TIMEOUT_MS,
      });
      if (typeof grant.id_token !== 'string')
        throw new OAuthFailure('provider_error', 'token answer without id_token');
      let profile;
      try {
        profile = await verify(grant.id_token);
      } catch (err) {
        if (err instanceof ServiceError && err.code === 'unavailable')
          throw new OAuthFailure('provider_unavailable', err.message);
        throw new OAuthFailure('provider_error', 'the ID token from the token endpoint does not verify');
      }
      return { ok: true, signIn: await signIn(deps, profile) };
    } catch (err) {
      if (err instanceof OAuthFailure) {
        logger.warn({ reason: err.code, detail: err.message }, 'Google sign-in failed');
        return { ok: false, error: err.code };
      }
      throw err;
    }
  };
