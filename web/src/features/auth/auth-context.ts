import { createContext } from 'react';
import type { AuthenticatedResponse, AuthUser } from '../../api/types.ts';

export type AuthStatus = 'loading' | 'authenticated' | 'unauthenticated';

export interface AuthContextValue {
  status: AuthStatus;
  isLoading: boolean;
  isAuthenticated: boolean;
  /**
   * The user logged out in this page's lifetime. The login page then skips its usual
   * re-check: if the server could not end the session (its cookie is httpOnly, only the
   * server can clear it), that check would sign the user straight back in.
   */
  justLoggedOut: boolean;
  user: AuthUser | null;
  token: string | null;
  /** Admin rights as the UI should honour them: false while the admin override is on. */
  isAdmin: boolean;
  /** What the server says, regardless of the override. */
  isRealAdmin: boolean;
  /** A real admin has switched admin features off locally (?disableAdmin=true). */
  adminOverrideDisabled: boolean;
  /** Asks the server who is signed in; true when someone is. A failed check counts as signed out. */
  checkAuth: () => Promise<boolean>;
  /** Stores and applies a successful sign-in answer. */
  completeLogin: (result: AuthenticatedResponse) => void;
  /** Signs out on the server and clears all local auth data, whatever the server answers, then goes to /login. */
  logout: () => Promise<void>;
}

export const AuthContext = createContext<AuthContextValue | null>(null);
