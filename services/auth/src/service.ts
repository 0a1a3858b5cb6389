import {
  countUsersRpc,
  discordLoginUrlRpc,
  getProvidersRpc,
  getUserRpc,
  googleLoginUrlRpc,
  managedGuildsRpc,
  redeemSocketTicketRpc,
  refreshSessionRpc,
  socketTicketRpc,
  revokeSessionRpc,
  setAdminRpc,
  userByDiscordIdRpc,
  signInDiscordRpc,
  signInGoogleCodeRpc,
  signInGoogleRpc,
  signInLocalRpc,
  SIGN_IN_LOCAL_TIMEOUT_MS,
  usersByIdsRpc,
  verifySessionRpc,
} from '@chronicler/contracts';
import { defineService, packageVersion, serve } from '@chronicler/kit';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AuthConfigSchema, resolveSettings } from './config.ts';
import { AuthStore } from './db/store.ts';
import { googleVerifier } from './google.ts';
import { HashGate } from './hash-gate.ts';
import { countUsers } from './handlers/count-users.ts';
import { managedGuilds } from './handlers/discord-guilds.ts';
import { discordLoginUrl } from './handlers/discord-login-url.ts';
import { getProviders } from './handlers/get-providers.ts';
import { getUser } from './handlers/get-user.ts';
import { googleLoginUrl } from './handlers/google-login-url.ts';
import { refreshSession } from './handlers/refresh-session.ts';
import { revokeSession } from './handlers/revoke-session.ts';
import { setAdmin } from './handlers/set-admin.ts';
import { signInDiscord } from './handlers/sign-in-discord.ts';
import { signInGoogleCode } from './handlers/sign-in-google-code.ts';
import { signInGoogle } from './handlers/sign-in-google.ts';
import { signInLocal } from './handlers/sign-in-local.ts';
import { redeemSocketTicket, socketTicket } from './handlers/socket-ticket.ts';
import { userByDiscordId } from './handlers/user-by-discord-id.ts';
import { usersByIds } from './handlers/users-by-ids.ts';
import { verifySession } from './handlers/verify-session.ts';
import type { AuthDeps } from './sessions.ts';
import { TokenService } from './tokens.ts';

export { AuthConfigSchema } from './config.ts';

export default defineService({
  name: 'auth',
  version: packageVersion(import.meta.url),
  config: AuthConfigSchema,
  migrationsDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations'),
  async start(ctx) {
    const settings = resolveSettings(ctx.config, ctx.platform.mode);
    const store = new AuthStore(ctx.db, ctx.schema);
    const tokens = await TokenService.create(settings, store);
    const deps: AuthDeps = { settings, store, tokens };
    const verifyGoogle = googleVerifier(settings);
    const hashGate = new HashGate({
      concurrency: settings.hashConcurrency,
      maxQueued: settings.hashQueue,
      // A third of the gateway's wait for the reply: the rest is for the check itself.
      maxWaitMs: SIGN_IN_LOCAL_TIMEOUT_MS / 3,
      retryAfterMs: 1000,
    });
    const bus = ctx.bus;
    const subs = [
      serve(bus, getProvidersRpc, getProviders(deps)),
      serve(bus, discordLoginUrlRpc, discordLoginUrl(deps)),
      serve(bus, signInDiscordRpc, signInDiscord(deps, ctx.logger, ctx.db, ctx.schema)),
      serve(bus, managedGuildsRpc, managedGuilds(ctx.db, ctx.schema)),
      serve(bus, googleLoginUrlRpc, googleLoginUrl(deps)),
      serve(bus, signInGoogleCodeRpc, signInGoogleCode(deps, verifyGoogle, ctx.logger)),
      serve(bus, signInGoogleRpc, signInGoogle(deps, verifyGoogle)),
      serve(bus, signInLocalRpc, signInLocal(deps, ctx.coord, hashGate, ctx.logger)),
      serve(bus, verifySessionRpc, verifySession(deps)),
      serve(bus, refreshSessionRpc, refreshSession(deps, bus, ctx.logger)),
      serve(bus, socketTicketRpc, socketTicket(deps)),
      serve(bus, redeemSocketTicketRpc, redeemSocketTicket(deps)),
      serve(bus, revokeSessionRpc, revokeSession(deps, bus)),
      serve(bus, getUserRpc, getUser(deps)),
      serve(bus, countUsersRpc, countUsers(store)),
      serve(bus, usersByIdsRpc, usersByIds(store)),
      serve(bus, setAdminRpc, setAdmin(store, settings)),
      serve(bus, userByDiscordIdRpc, userByDiscordId(deps, ctx.db, ctx.schema)),
    ];
    ctx.logger.info(
      { discord: Boolean(settings.discord), google: Boolean(settings.google), local: settings.localEnabled },
      'sign-in methods',
    );
    return {
      async stop() {
        await Promise.all(subs.map((s) => s.unsubscribe()));
      },
    };
  },
});
