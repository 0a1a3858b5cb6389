// The access token is short-lived and refused once expired, wherever it is sent. A new one
// comes from POST /auth/refresh, which the browser sends the httpOnly refresh cookie to (and
// to nothing else); each use replaces that cookie, and a used one sent again ends the session.
// So refreshes must never overlap: one at a time in this page, and across tabs (which share
// the cookie and the stored token) one at a time through a Web Lock where the browser has them.
import type { AuthCheckResponse, AuthUser } from '@chronicler/contracts';
import { readItem, STORAGE_KEYS, writeItem } from '../lib/storage.ts';

/** Base path of the API (as in http.ts, which imports this module). */
const API_BASE = (import.meta.env.VITE_API_BASE || '/api').replace(/\/$/, '');
const LOCK_NAME = 'chronicler-auth-refresh';

export interface Refreshed {
  token: string;
  /** Absent when another tab did the refresh: only its token is known here. */
  user?: AuthUser;
}

type Listener = (refreshed: Refreshed) => void;
const listeners = new Set<Listener>();
let inFlight: Promise<Refreshed | null> | null = null;

/** Called with every new access token this page gets from a refresh. */
export function onTokenRefreshed(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

async function refreshOnce(failedToken: string | null): Promise<Refreshed | null> {
  // Another tab may have refreshed while this one waited for the lock: its token is stored.
  const stored = readItem(STORAGE_KEYS.token);
  if (stored && stored !== failedToken) return { token: stored };
  let response: Response;
  try {
    response = await fetch(`${API_BASE}/auth/refresh`, {
      method: 'POST',
      headers: { Accept: 'application/json' },
      credentials: 'include',
    });
  } catch {
    return null;
  }
  if (!response.ok) return null;
  const body = (await response.json().catch(() => null)) as AuthCheckResponse | null;
  if (!body?.authenticated || !body.token || !body.user) return null;
  writeItem(STORAGE_KEYS.token, body.token);
  return { token: body.token, user: body.user };
}

/**
 * A new access token from the refresh cookie, or null when there is none to be had (signed
 * out, session ended, offline). `failedToken` is the token that was just refused: when the
 * stored one differs, another tab has refreshed already and that one is answered.
 */
export function refreshAccess(failedToken: string | null): Promise<Refreshed | null> {
  inFlight ??= (async () => {
    const locks = typeof navigator !== 'undefined' ? navigator.locks : undefined;
    const refreshed = locks
      ? await locks.request(LOCK_NAME, () => refreshOnce(failedToken))
      : await refreshOnce(failedToken);
    if (refreshed) for (const listener of listeners) listener(refreshed);
    return refreshed;
  })().finally(() => {
    inFlight = null;
  });
  return inFlight;
}
