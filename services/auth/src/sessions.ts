import { createHash, randomBytes } from 'node:crypto';
import type { AuthUser, SignIn } from '@chronicler/contracts';
import type { AuthSettings } from './config.ts';
import type { AuthStore } from './db/store.ts';
import type { ProviderProfile, SessionRow, UserRow } from './db/tables.ts';
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

/** Upserts the user, opens a session and issues its first access token and refresh credential. */
export async function signIn(deps: AuthDeps, profile: ProviderProfile): Promise<SignIn> {
  const user = await deps.store.upsertUser(profile);
  const session = await deps.store.createSession(user.id, profile.provider, deps.settings.sessionTtlSeconds);
  return issueCredentials(deps, user, session);
}

/** A new access token and a new refresh credential (its hash stored) for a live session. */
export async function issueCredentials(deps: AuthDeps, user: UserRow, session: SessionRow): Promise<SignIn> {
  const expiresAt = new Date(session.expires_at);
  const { token, exp } = await deps.tokens.sign(user.id, session.id, expiresAt);
  const refresh = randomBytes(32).toString('base64url');
  await deps.store.addRefreshToken(session.id, secretHash(refresh));
  return {
    token,
    token_expires_at: new Date(exp * 1000).toISOString(),
    refresh_token: refresh,
    user: toAuthUser(user, deps.settings),
    session_id: session.id,
    session_expires_at: expiresAt.toISOString(),
  };
}

/** What is stored of a refresh credential or a socket ticket: enough to find it, not to use it. */
export const secretHash = (secret: string): string => createHash('sha256').update(secret).digest('hex');
