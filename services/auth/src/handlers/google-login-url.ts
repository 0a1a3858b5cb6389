import type { LoginUrlResponse } from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';
import { newPkce } from '../oauth.ts';
import type { AuthDeps } from '../sessions.ts';

/**
 * svc.auth.google-login-url: Google's consent URL for the redirect flow (the login page's
 * button uses Google Identity Services instead; this serves clients without it).
 */
export const googleLoginUrl =
  ({ settings, store }: AuthDeps) =>
  async (req: { redirect_uri: string }): Promise<LoginUrlResponse> => {
    if (!settings.google?.clientSecret)
      throw new ServiceError('not_found', 'Google sign-in by redirect is not configured');
    const redirectUri = settings.raw.GOOGLE_REDIRECT_URI ?? req.redirect_uri;
    const pkce = newPkce();
    await store.saveOAuthState({
      state: pkce.state,
      code_verifier: pkce.verifier,
      provider: 'google',
      redirect_uri: redirectUri,
    });
    const url = new URL(settings.raw.GOOGLE_AUTHORIZE_URL);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: settings.google.clientId,
      scope: 'openid email profile',
      redirect_uri: redirectUri,
      state: pkce.state,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
    }).toString();
    return { login_url: url.toString() };
  };
