import type { SocketTicketResponse } from '@chronicler/contracts';
import { getStoredToken } from '../features/auth/auth-storage.ts';
import { apiRequest } from './http.ts';
import { refreshAccess } from './refresh.ts';
import type { AuthCheckResponse, AuthProviders, DebugCookiesResponse, LoginUrlResponse } from './types.ts';

export type LoginProvider = 'discord' | 'google';

/**
 * GET /auth/user. Any failure means "not authenticated". When the access token has expired
 * (or there is none, e.g. a new tab after a while), the refresh cookie is tried once: a
 * session that lives signs the user in again without a word.
 */
export async function getCurrentUser(signal?: AbortSignal): Promise<AuthCheckResponse> {
  try {
    const sentToken = getStoredToken();
    const data = await apiRequest<AuthCheckResponse>('/auth/user', {
      signal,
      errorMessage: 'Authentication check failed',
    });
    if (data && typeof data === 'object' && data.authenticated) return data;
    const refreshed = await refreshAccess(sentToken);
    if (signal?.aborted) throw new DOMException('Aborted', 'AbortError');
    if (refreshed?.user) return { authenticated: true, user: refreshed.user, token: refreshed.token };
    if (refreshed) {
      // Another tab refreshed: ask again with its token.
      return await apiRequest<AuthCheckResponse>('/auth/user', {
        signal,
        errorMessage: 'Authentication check failed',
      });
    }
    return { authenticated: false };
  } catch (error) {
    if (signal?.aborted) throw error;
    return { authenticated: false };
  }
}

/** POST /auth/socket-ticket: a one-time code that opens one chat or planning socket. */
export function getSocketTicket(): Promise<SocketTicketResponse> {
  return apiRequest<SocketTicketResponse>('/auth/socket-ticket', {
    method: 'POST',
    errorMessage: 'Could not open the connection',
  });
}

export function getLoginUrl(provider: LoginProvider): Promise<LoginUrlResponse> {
  return apiRequest<LoginUrlResponse>(`/auth/${provider}/login`, { errorMessage: 'Authentication failed' });
}

export function postGoogleCredential(credential: string): Promise<AuthCheckResponse> {
  return apiRequest<AuthCheckResponse>('/auth/google/credential', {
    method: 'POST',
    body: { credential },
    errorMessage: 'Authentication failed',
  });
}

/**
 * Local account (when the server offers it): signs in, or with `create` opens the account
 * (an existing one with this password is signed in).
 */
export function postLocalLogin(
  username: string,
  password: string,
  create: boolean,
): Promise<AuthCheckResponse> {
  return apiRequest<AuthCheckResponse>('/auth/local', {
    method: 'POST',
    body: create ? { username, password, create: true } : { username, password },
    errorMessage: 'Authentication failed',
  });
}

export function getAuthProviders(): Promise<AuthProviders> {
  return apiRequest<AuthProviders>('/auth/providers', { errorMessage: 'Could not load sign-in options' });
}

export function logoutRequest(): Promise<unknown> {
  return apiRequest<unknown>('/auth/logout', { errorMessage: 'Logout failed' });
}

/** GET /auth/debug-cookies; on failure an error object instead of the answer. */
export async function debugCookies(signal?: AbortSignal): Promise<DebugCookiesResponse | { error: string }> {
  try {
    return await apiRequest<DebugCookiesResponse>('/auth/debug-cookies', {
      signal,
      errorMessage: 'Failed to debug cookies',
    });
  } catch (error) {
    if (signal?.aborted) throw error;
    return { error: error instanceof Error ? error.message : 'Failed to debug cookies' };
  }
}
