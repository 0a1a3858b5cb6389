import type { AuthUser, SignIn } from '@chronicler/contracts';
import type { AuthSettings } from './config.ts';
import type { AuthStore } from './db/store.ts';
import type { ProviderProfile, UserRow } from './db/tables.ts';
import type { TokenService } from './tokens.ts';

/** What every handler gets. */
export interface AuthDeps {
  settings: AuthSettings;
  store: AuthStore;
  tokens: TokenService;
}

/**
 * Admin rights come from the database flag or from configuration. The configured lists
 * are checked at read time and never copied into the row, so removing someone from
 * ADMIN_DISCORD_IDS / ADMIN_EMAILS / ADMIN_LOCAL_USERS takes their rights away.
 */
export function toAuthUser(row: UserRow, settings: AuthSettings): AuthUser {
  const is_admin =
    row.is_admin ||
    (row.discord_id !== null && settings.adminDiscordIds.has(row.discord_id)) ||
    (row.email !== null && settings.adminEmails.has(row.email.toLowerCase())) ||
    (row.local_name !== null && settings.adminLocalUsers.has(row.local_name));
  return { id: row.id, username: row.username, avatar: row.avatar, discord_id: row.discord_id, is_admin };
}

/** Upserts the user, opens a session and signs its first token. */
export async function signIn(deps: AuthDeps, profile: ProviderProfile): Promise<SignIn> {
  const user = await deps.store.upsertUser(profile);
  const session = await deps.store.createSession(user.id, profile.provider, deps.settings.sessionTtlSeconds);
  const expiresAt = new Date(session.expires_at);
  const { token } = await deps.tokens.sign(user.id, session.id, expiresAt);
  return {
    token,
    user: toAuthUser(user, deps.settings),
    session_id: session.id,
    session_expires_at: expiresAt.toISOString(),
  };
}
