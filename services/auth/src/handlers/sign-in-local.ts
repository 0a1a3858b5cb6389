import { LOCAL_USERNAME_MAX, type LocalSignInRequest, type SignIn } from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';
import { signIn, type AuthDeps } from '../sessions.ts';

/**
 * svc.auth.sign-in-local: a password-less account named by the user, for the embedded
 * mode on one's own machine. Names match case-insensitively, so "Alice" and "alice" are
 * one account.
 */
export const signInLocal =
  (deps: AuthDeps) =>
  async (req: LocalSignInRequest): Promise<SignIn> => {
    if (!deps.settings.localEnabled) throw new ServiceError('forbidden', 'Local sign-in is not enabled');
    const username = req.username.trim().replace(/\s+/g, ' ');
    if (!username) throw new ServiceError('bad_request', 'Username cannot be empty.');
    if (username.length > LOCAL_USERNAME_MAX) {
      throw new ServiceError('bad_request', `Username cannot exceed ${LOCAL_USERNAME_MAX} characters.`);
    }
    if (/[\p{Cc}\p{Cf}]/u.test(username))
      throw new ServiceError('bad_request', 'Username contains invalid characters.');
    return signIn(deps, {
      provider: 'local',
      subject: username.toLowerCase(),
      username,
      avatar: null,
      email: null,
    });
  };
