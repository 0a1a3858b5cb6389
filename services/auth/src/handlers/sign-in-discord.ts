import type { OAuthCallbackRequest, OAuthSignInResult } from '@chronicler/contracts';
import type { DatabaseHandle, Logger } from '@chronicler/kit';
import type { ProviderProfile } from '../db/tables.ts';
import { exchangeCode, OAuthFailure, providerJson } from '../oauth.ts';
import { signIn, type AuthDeps } from '../sessions.ts';
import { storeDiscordGuilds } from './discord-guilds.ts';

/**
 * svc.auth.sign-in-discord: what Discord sent to our callback. The state is consumed
 * first in every case, so a state works once, even for a refused consent.
 */
export const signInDiscord =
  (deps: AuthDeps, logger: Logger, db: DatabaseHandle, schema: string) =>
  async (req: OAuthCallbackRequest): Promise<OAuthSignInResult> => {
    try {
      const { profile, accessToken } = await discordProfile(deps, req);
      const done = await signIn(deps, profile);
      // The servers they manage, for the server-settings pages (scope `guilds`).
      await storeDiscordGuilds(db, schema, {
        api: deps.settings.raw.DISCORD_API_BASE.replace(/\/+$/, ''),
        accessToken,
        userId: done.user.id,
        timeoutMs: deps.settings.raw.OAUTH_HTTP_TIMEOUT_MS,
        logger,
      });
      return { ok: true, signIn: done };
    } catch (err) {
      if (err instanceof OAuthFailure) {
        logger.warn({ reason: err.code, detail: err.message }, 'Discord sign-in failed');
        return { ok: false, error: err.code };
      }
      throw err;
    }
  };

async function discordProfile(
  { settings, store }: AuthDeps,
  req: OAuthCallbackRequest,
): Promise<{ profile: ProviderProfile; accessToken: string }> {
  const discord = settings.discord;
  if (!discord) throw new OAuthFailure('not_configured', 'Discord sign-in is not configured');
  const stored = req.state ? await store.consumeOAuthState(req.state, 'discord') : undefined;
  if (req.error) {
    throw new OAuthFailure(
      req.error === 'access_denied' ? 'access_denied' : 'provider_error',
      `Discord said ${req.error}`,
    );
  }
  if (!stored) throw new OAuthFailure('invalid_state', 'unknown, expired or reused state');
  if (!req.code) throw new OAuthFailure('provider_error', 'callback without a code');

  const timeoutMs = settings.raw.OAUTH_HTTP_TIMEOUT_MS;
  const api = settings.raw.DISCORD_API_BASE.replace(/\/+$/, '');
  const grant = await exchangeCode(`${api}/oauth2/token`, {
    code: req.code,
    redirectUri: stored.redirect_uri,
    verifier: stored.code_verifier,
    clientId: discord.clientId,
    clientSecret: discord.clientSecret,
    timeoutMs,
  });
  if (typeof grant.access_token !== 'string')
    throw new OAuthFailure('provider_error', 'token answer without access_token');
  const me = await providerJson(`${api}/users/@me`, {
    headers: { authorization: `Bearer ${grant.access_token}`, accept: 'application/json' },
    timeoutMs,
    what: 'reading the Discord user',
  });
  if (typeof me.id !== 'string' || typeof me.username !== 'string') {
    throw new OAuthFailure('provider_error', 'Discord user without id or username');
  }
  const display = typeof me.global_name === 'string' && me.global_name ? me.global_name : me.username;
  const profile: ProviderProfile = {
    provider: 'discord',
    subject: me.id,
    username: display,
    avatar: typeof me.avatar === 'string' ? me.avatar : null,
    email: typeof me.email === 'string' && me.verified === true ? me.email : null,
  };
  return { profile, accessToken: grant.access_token };
}
