// Everything the client keeps in local storage, under the keys the specification names.
// Storage can be unavailable (privacy modes, quota): every access fails soft.

export const STORAGE_KEYS = {
  user: 'auth_user',
  state: 'auth_state',
  token: 'auth_token',
  adminOverrideDisabled: 'admin_override_disabled',
} as const;

/** The only value auth_state ever holds. */
export const AUTH_STATE_AUTHENTICATED = 'authenticated';

export function readItem(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

export function writeItem(key: string, value: string): void {
  try {
    window.localStorage.setItem(key, value);
  } catch {
    // Nothing useful to do: the app keeps working from memory.
  }
}

export function removeItem(key: string): void {
  try {
    window.localStorage.removeItem(key);
  } catch {
    // See writeItem.
  }
}
