import { useEffect, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import toast from 'react-hot-toast';
import { debugCookies, getCurrentUser } from '../../api/auth.ts';
import { landingPathAfterLogin } from '../../api/lists.ts';
import { isAuthenticatedResponse } from '../../api/types.ts';
import { sleep } from '../../lib/sleep.ts';
import { storeToken } from './auth-storage.ts';
import {
  CALLBACK_FAILURE_REDIRECT_MS,
  CALLBACK_INITIAL_WAIT_MS,
  CALLBACK_MAX_RETRIES,
  CALLBACK_RETRY_DELAY_MS,
} from './timing.ts';
import { useAuth } from './useAuth.ts';

type Phase =
  { kind: 'waiting' } | { kind: 'retrying'; attempt: number } | { kind: 'success' } | { kind: 'failed' };

function phaseText(phase: Phase): string {
  switch (phase.kind) {
    case 'waiting':
      return 'Please wait while we complete the login process.';
    case 'retrying':
      return `Retrying... (${phase.attempt}/${CALLBACK_MAX_RETRIES})`;
    case 'success':
      return 'Authentication successful! Redirecting...';
    case 'failed':
      return 'Authentication failed. Please try logging in again.';
  }
}

function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/**
 * The sign-in return screen (/auth/callback?token=...). The token is stored and taken out
 * of the URL at once; after 1 s the cookie debug info and the current user are checked
 * directly. If that does not sign the user in, the auth context checks again up to 3
 * times, 1 s apart. Every redirect replaces the history entry.
 */
export function AuthCallbackPage() {
  const navigate = useNavigate();
  const { checkAuth, completeLogin } = useAuth();
  // Read once, before the URL is cleaned (and before a second effect run in development).
  const [token] = useState(() => new URLSearchParams(window.location.search).get('token'));
  const [phase, setPhase] = useState<Phase>({ kind: 'waiting' });

  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    // A failed check clears stored auth data; the token from the URL is put back before each try.
    const ensureToken = () => {
      if (token) storeToken(token);
    };

    ensureToken();
    const url = new URL(window.location.href);
    if (url.searchParams.has('token')) {
      url.searchParams.delete('token');
      navigate({ pathname: url.pathname, search: url.search, hash: url.hash }, { replace: true });
    }

    const succeed = async () => {
      setPhase({ kind: 'success' });
      toast.success('Successfully authenticated');
      const path = await landingPathAfterLogin();
      if (!signal.aborted) navigate(path, { replace: true });
    };

    const run = async () => {
      await sleep(CALLBACK_INITIAL_WAIT_MS, signal);
      ensureToken();
      const cookies = await debugCookies(signal);
      console.info('Auth callback: cookie check', cookies);

      const direct = await getCurrentUser(signal);
      if (signal.aborted) return;
      if (isAuthenticatedResponse(direct)) {
        completeLogin(direct);
        await succeed();
        return;
      }

      for (let attempt = 1; attempt <= CALLBACK_MAX_RETRIES; attempt += 1) {
        setPhase({ kind: 'retrying', attempt });
        await sleep(CALLBACK_RETRY_DELAY_MS, signal);
        ensureToken();
        const authenticated = await checkAuth();
        if (signal.aborted) return;
        if (authenticated) {
          await succeed();
          return;
        }
      }

      await fail();
    };

    const fail = async () => {
      setPhase({ kind: 'failed' });
      toast.error('Authentication failed');
      await sleep(CALLBACK_FAILURE_REDIRECT_MS, signal);
      navigate('/login', { replace: true });
    };

    run().catch((error: unknown) => {
      if (signal.aborted || isAbort(error)) return;
      console.error('Auth callback failed', error);
      fail().catch(() => undefined);
    });

    return () => controller.abort();
  }, [token, navigate, checkAuth, completeLogin]);

  const failed = phase.kind === 'failed';
  return (
    <main className="auth-screen">
      <section className="auth-card auth-card-narrow" aria-labelledby="callback-title">
        <div className="auth-callback-icon">
          {failed ? (
            <span className="status-icon status-icon-error" aria-hidden="true">
              !
            </span>
          ) : phase.kind === 'success' ? (
            <span className="status-icon status-icon-success" aria-hidden="true">
              ✓
            </span>
          ) : (
            <span className="spinner spinner-large" aria-hidden="true" />
          )}
        </div>
        <h1 id="callback-title" className="auth-title">
          Finalizing Authentication...
        </h1>
        <p
          className={failed ? 'callback-status callback-status-error' : 'callback-status'}
          role="status"
          aria-live="polite"
        >
          {phaseText(phase)}
        </p>
      </section>
    </main>
  );
}
