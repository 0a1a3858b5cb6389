import { useCallback, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import toast from 'react-hot-toast';
import { landingPathAfterLogin } from '../../api/lists.ts';
import { isAuthenticatedResponse, type AuthCheckResponse } from '../../api/types.ts';
import { storeToken } from './auth-storage.ts';
import { useAuth } from './useAuth.ts';

/**
 * What follows a successful Google credential or local sign-in: store the token and user,
 * toast 'Successfully authenticated', then /welcome for a user with no groups and no
 * transcripts, / otherwise. `finishing` is true meanwhile, so the login page does not
 * send the (now signed-in) user to / on its own before the choice is made.
 */
export function useFinishLogin() {
  const { completeLogin } = useAuth();
  const navigate = useNavigate();
  const [finishing, setFinishing] = useState(false);

  const finishLogin = useCallback(
    async (result: AuthCheckResponse): Promise<boolean> => {
      if (!isAuthenticatedResponse(result)) {
        toast.error('Authentication failed');
        return false;
      }
      setFinishing(true);
      if (result.token) storeToken(result.token);
      completeLogin(result);
      toast.success('Successfully authenticated');
      const path = await landingPathAfterLogin();
      navigate(path, { replace: true });
      return true;
    },
    [completeLogin, navigate],
  );

  return { finishLogin, finishing };
}
