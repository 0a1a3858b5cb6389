/**
 * Rows of the `auth` schema (migrations/0001_users_sessions.sql, 0002_local_passwords.sql), as
 * the plain parameterised SQL of store.ts reads them through the kit's DatabaseHandle.
 */
export interface UserRow {
  id: string;
  discord_id: string | null;
  google_sub: string | null;
  local_name: string | null;
  username: string;
  avatar: string | null;
  email: string | null;
  is_admin: boolean;
  /** scrypt hash of a local account's password (see passwords.ts); null for provider accounts and unclaimed legacy local ones. */
  password_hash: string | null;
  created_at: Date;
  last_login_at: Date;
}

export interface SessionRow {
  id: string;
  user_id: string;
  provider: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

export interface OAuthStateRow {
  state: string;
  code_verifier: string;
  provider: string;
  redirect_uri: string;
  created_at: Date;
}

type Provider = 'discord' | 'google' | 'local';

/** A provider's identity of a user, and what we copy from its profile. */
export interface ProviderProfile {
  provider: Provider;
  /** Discord user id, Google `sub`, or the lowercased local name. */
  subject: string;
  username: string;
  avatar: string | null;
  /** Only a verified address: admin rights may hang on it. */
  email: string | null;
}
