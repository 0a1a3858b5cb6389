import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router-dom';
import toast from 'react-hot-toast';
import { getCurrentUser, logoutRequest } from '../../api/auth.ts';
import { onTokenRefreshed, refreshAccess } from '../../api/refresh.ts';
import { isAuthenticatedResponse, type AuthenticatedResponse, type AuthUser } from '../../api/types.ts';
import { AuthContext, type AuthContextValue, type AuthStatus } from './auth-context.ts';
import {
  clearAllLocalAuth,
  clearStoredAuth,
  getStoredToken,
  readAdminOverrideDisabled,
  restoreStoredAuth,
  storeAuth,
  tokenExpiresAt,
} from './auth-storage.ts';
import { useAdminOverrideParam } from './admin-override.ts';

interface AuthState {
  status: AuthStatus;
  user: AuthUser | null;
  token: string | null;
  /** Signed out by the user's own logout in this page's lifetime. */
  loggedOut?: boolean;
}

const SIGNED_OUT: AuthState = { status: 'unauthenticated', user: null, token: null };

/** How long before the stored token expires it is replaced, and the shortest wait before a refresh. */
const REFRESH_AHEAD_MS = 60_000;
const MIN_REFRESH_MS = 10_000;
/** setTimeout's longest delay (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

function initialState(): AuthState {
  const stored = restoreStoredAuth();
  return stored
    ? { status: 'authenticated', user: stored.user, token: stored.token }
    : { status: 'loading', user: null, token: null };
}

export function AuthProvider({ children }: { children: ReactNode }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [state, setState] = useState<AuthState>(initialState);
  const [overrideDisabled, setOverrideDisabled] = useState(readAdminOverrideDisabled);

  // A sign-in or a logout starts a new generation: an auth check that was already on its
  // way must not overwrite what happened since.
  const generation = useRef(0);
  const inFlight = useRef<{ generation: number; promise: Promise<boolean> } | null>(null);

  const checkAuth = useCallback((): Promise<boolean> => {
    const current = inFlight.current;
    if (current && current.generation === generation.current) return current.promise;
    const started = generation.current;
    const promise = getCurrentUser()
      .then((result) => {
        if (started !== generation.current) return isAuthenticatedResponse(result);
        if (isAuthenticatedResponse(result)) {
          const token = result.token ?? getStoredToken();
          storeAuth(result.user, token);
          setState({ status: 'authenticated', user: result.user, token });
          return true;
        }
        clearStoredAuth();
        setState(SIGNED_OUT);
        return false;
      })
      .finally(() => {
        if (inFlight.current?.promise === promise) inFlight.current = null;
      });
    inFlight.current = { generation: started, promise };
    return promise;
  }, []);

  const completeLogin = useCallback((result: AuthenticatedResponse) => {
    generation.current += 1;
    const token = result.token ?? getStoredToken();
    storeAuth(result.user, token);
    setState({ status: 'authenticated', user: result.user, token });
  }, []);

  const logout = useCallback(async () => {
    generation.current += 1;
    let failed = false;
    try {
      await logoutRequest();
    } catch (error) {
      failed = true;
      console.error('Logout request failed; clearing local auth data anyway', error);
    }
    clearAllLocalAuth();
    setOverrideDisabled(false);
    setState({ ...SIGNED_OUT, loggedOut: true });
    queryClient.clear();
    if (failed) toast.error('Logout failed');
    else toast.success('Successfully logged out');
    navigate('/login', { replace: true });
  }, [navigate, queryClient]);

  // Check with the server once at start; a restored state stays on screen meanwhile.
  useEffect(() => {
    void checkAuth();
  }, [checkAuth]);

  // The server refuses an expired token wherever it is sent, and sockets carry the stored
  // token, so it is replaced through the refresh cookie shortly before it expires (a request
  // that meets a 401 meanwhile refreshes by itself, see api/http.ts).
  useEffect(() => {
    if (state.status !== 'authenticated' || !state.token) return;
    const expiresAt = tokenExpiresAt(state.token);
    if (expiresAt === null) return;
    const delay = Math.min(MAX_TIMER_MS, Math.max(MIN_REFRESH_MS, expiresAt - Date.now() - REFRESH_AHEAD_MS));
    const token = state.token;
    // Only a success changes anything (through onTokenRefreshed below): a failed refresh (a
    // network blip) must not sign the user out; a session that really ended shows at the
    // next request's 401.
    const timer = window.setTimeout(() => void refreshAccess(token), delay);
    return () => window.clearTimeout(timer);
  }, [state.status, state.token]);

  // Every refresh, whoever asked for it, brings the new token (and the user) into the state.
  useEffect(
    () =>
      onTokenRefreshed((refreshed) => {
        setState((prev) => {
          if (prev.status !== 'authenticated') return prev;
          const user = refreshed.user ?? prev.user;
          if (user) storeAuth(user, refreshed.token);
          return { status: 'authenticated', user, token: refreshed.token };
        });
      }),
    [],
  );

  const isRealAdmin = state.user?.is_admin === true;
  useAdminOverrideParam(isRealAdmin, setOverrideDisabled);
  const adminOverrideDisabled = isRealAdmin && overrideDisabled;

  const value = useMemo<AuthContextValue>(
    () => ({
      status: state.status,
      isLoading: state.status === 'loading',
      isAuthenticated: state.status === 'authenticated',
      justLoggedOut: state.loggedOut === true,
      user: state.user,
      token: state.token,
      isAdmin: isRealAdmin && !adminOverrideDisabled,
      isRealAdmin,
      adminOverrideDisabled,
      checkAuth,
      completeLogin,
      logout,
    }),
    [state, isRealAdmin, adminOverrideDisabled, checkAuth, completeLogin, logout],
  );

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
