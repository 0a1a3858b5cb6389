import type { GoogleCredentialRequest, SignIn } from '@chronicler/contracts';
import type { GoogleIdTokenVerifier } from '../google.ts';
import { signIn, type AuthDeps } from '../sessions.ts';

/** svc.auth.sign-in-google: a GSI credential (ID token) → a session. */
export const signInGoogle =
  (deps: AuthDeps, verify: GoogleIdTokenVerifier) =>
  async (req: GoogleCredentialRequest): Promise<SignIn> =>
    signIn(deps, await verify(req.credential));
