// Local auth data: auth_user (JSON), auth_state ('authenticated') and auth_token, plus the
// admin override flag. The state is restored at start only when all three auth keys are
// present and valid; anything partial is cleared.
import type { AuthUser } from '../../api/types.ts';
import { deleteCookie } from '../../lib/cookies.ts';
import {
  AUTH_STATE_AUTHENTICATED,
  readItem,
  removeItem,
  STORAGE_KEYS,
  writeItem,
} from '../../lib/storage.ts';

export interface StoredAuth {
  user: AuthUser;
  token: string;
}

function parseUser(raw: string): AuthUser | null {
  try {
    const value: unknown = JSON.parse(raw);
    if (value && typeof value === 'object' && typeof (value as AuthUser).username === 'string') {
      return value as AuthUser;
    }
  } catch {
    // Fall through: unreadable data counts as missing.
  }
  return null;
}

/** The stored auth state when it is complete; otherwise clears what is there and gives null. */
export function restoreStoredAuth(): StoredAuth | null {
  const rawUser = readItem(STORAGE_KEYS.user);
  const state = readItem(STORAGE_KEYS.state);
  const token = readItem(STORAGE_KEYS.token);
  const user = rawUser ? parseUser(rawUser) : null;
  if (user && state === AUTH_STATE_AUTHENTICATED && token) return { user, token };
  if (rawUser !== null || state !== null || token !== null) clearStoredAuth();
  return null;
}

/** When a token (a JWT) expires, in epoch ms; null when it cannot be read. */
export function tokenExpiresAt(token: string): number | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const exp: unknown = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : null;
  } catch {
    return null;
  }
}

export function getStoredToken(): string | null {
  return readItem(STORAGE_KEYS.token);
}

export function storeToken(token: string): void {
  writeItem(STORAGE_KEYS.token, token);
}

export function storeAuth(user: AuthUser, token?: string | null): void {
  writeItem(STORAGE_KEYS.user, JSON.stringify(user));
  writeItem(STORAGE_KEYS.state, AUTH_STATE_AUTHENTICATED);
  if (token) writeItem(STORAGE_KEYS.token, token);
}

/** Removes auth_user, auth_state and auth_token. */
export function clearStoredAuth(): void {
  removeItem(STORAGE_KEYS.user);
  removeItem(STORAGE_KEYS.state);
  removeItem(STORAGE_KEYS.token);
}

/** Everything a logout removes: the auth keys, the admin override and the access-token cookie. */
export function clearAllLocalAuth(): void {
  clearStoredAuth();
  removeItem(STORAGE_KEYS.adminOverrideDisabled);
  deleteCookie('access_token');
}

export function readAdminOverrideDisabled(): boolean {
  return readItem(STORAGE_KEYS.adminOverrideDisabled) === 'true';
}

export function writeAdminOverrideDisabled(disabled: boolean): void {
  if (disabled) writeItem(STORAGE_KEYS.adminOverrideDisabled, 'true');
  else removeItem(STORAGE_KEYS.adminOverrideDisabled);
}
