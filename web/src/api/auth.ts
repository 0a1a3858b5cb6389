import { apiRequest } from './http.ts';
import type { AuthCheckResponse, AuthProviders, DebugCookiesResponse, LoginUrlResponse } from './types.ts';

export type LoginProvider = 'discord' | 'google';

/** GET /auth/user. Any failure means "not authenticated". */
export async function getCurrentUser(signal?: AbortSignal): Promise<AuthCheckResponse> {
  try {
    const data = await apiRequest<AuthCheckResponse>('/auth/user', {
      signal,
      errorMessage: 'Authentication check failed',
    });
    return data && typeof data === 'object' ? data : { authenticated: false };
  } catch (error) {
    if (signal?.aborted) throw error;
    return { authenticated: false };
  }
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
