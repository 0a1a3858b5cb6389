// Shapes of the gateway's answers used by the client foundation.

export interface AuthUser {
  id: string;
  username: string;
  /** A full image URL, or a Discord avatar hash (combined with discord_id), or null. */
  avatar: string | null;
  discord_id: string | null;
  is_admin: boolean;
}

/** GET /auth/user, POST /auth/google/credential, POST /auth/local. */
export interface AuthCheckResponse {
  authenticated: boolean;
  user?: AuthUser;
  token?: string;
}

/** An answer that really signs someone in. */
export type AuthenticatedResponse = AuthCheckResponse & { authenticated: true; user: AuthUser };

export function isAuthenticatedResponse(
  value: AuthCheckResponse | null | undefined,
): value is AuthenticatedResponse {
  return Boolean(value && value.authenticated === true && value.user);
}

export interface AuthProviders {
  discord: boolean;
  google: boolean;
  google_client_id: string | null;
  local: boolean;
}

export interface LoginUrlResponse {
  login_url: string;
}

export interface DebugCookiesResponse {
  access_token_present: boolean;
}

export interface AppConfig {
  bot_invite_url: string | null;
  community_url: string | null;
}

/** Only the fields this part of the client reads; the full shapes come with the screens that use them. */
export interface GroupSummaryItem {
  id: string;
  group_id?: string;
  name: string;
}

export interface TranscriptSummaryItem {
  id: string;
  name: string;
}
