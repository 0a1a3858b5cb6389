import type { LoginUrlResponse } from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';
import { newPkce } from '../oauth.ts';
import type { AuthDeps } from '../sessions.ts';

/** svc.auth.discord-login-url: a one-time state and PKCE verifier, and Discord's consent URL. */
export const discordLoginUrl =
  ({ settings, store }: AuthDeps) =>
  async (req: { redirect_uri: string }): Promise<LoginUrlResponse> => {
    if (!settings.discord) throw new ServiceError('not_found', 'Discord sign-in is not configured');
    const redirectUri = settings.raw.DISCORD_REDIRECT_URI ?? req.redirect_uri;
    const pkce = newPkce();
    await store.saveOAuthState({
      state: pkce.state,
      code_verifier: pkce.verifier,
      provider: 'discord',
      redirect_uri: redirectUri,
    });
    const url = new URL(settings.raw.DISCORD_OAUTH_AUTHORIZE_URL);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: settings.discord.clientId,
      // `guilds`: which servers they manage, for the voice bot's server settings.
      scope: 'identify email guilds',
      redirect_uri: redirectUri,
      state: pkce.state,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
      prompt: 'none',
    }).toString();
    return { login_url: url.toString() };
  };
