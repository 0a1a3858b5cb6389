import { useCallback, useEffect, useState } from 'react';
import { Navigate } from 'react-router-dom';
import { useQuery } from '@tanstack/react-query';
import toast from 'react-hot-toast';
import { getAuthProviders, getLoginUrl, postGoogleCredential } from '../../api/auth.ts';
import type { AuthProviders } from '../../api/types.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { queryKeys } from '../../app/query-client.ts';
import { GoogleSignInButton } from './GoogleSignInButton.tsx';
import { LocalLoginForm } from './LocalLoginForm.tsx';
import { useAuth } from './useAuth.ts';
import { useFinishLogin } from './useFinishLogin.ts';

// If the providers cannot be read, offer the default sign-in (Discord) and let the server
// answer the click.
const FALLBACK_PROVIDERS: AuthProviders = {
  discord: true,
  google: false,
  google_client_id: null,
  local: false,
  first_account: false,
};

function DiscordIcon() {
  return (
    <svg className="button-icon" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path
        fill="currentColor"
        d="M20.32 4.37A19.8 19.8 0 0 0 15.4 2.84a13.7 13.7 0 0 0-.63 1.3 18.4 18.4 0 0 0-5.53 0 13 13 0 0 0-.64-1.3 19.7 19.7 0 0 0-4.92 1.53C.6 9.05-.24 13.6.18 18.1a19.9 19.9 0 0 0 6.03 3.05c.49-.66.92-1.36 1.3-2.1a12.9 12.9 0 0 1-2.04-.98l.5-.39a14.2 14.2 0 0 0 12.06 0l.5.39c-.65.38-1.33.71-2.05.98.38.74.81 1.44 1.3 2.1a19.8 19.8 0 0 0 6.04-3.05c.5-5.22-.84-9.73-3.5-13.73ZM8.02 15.33c-1.18 0-2.15-1.08-2.15-2.42 0-1.33.95-2.42 2.15-2.42 1.21 0 2.17 1.1 2.15 2.42 0 1.34-.95 2.42-2.15 2.42Zm7.96 0c-1.18 0-2.15-1.08-2.15-2.42 0-1.33.95-2.42 2.15-2.42 1.21 0 2.17 1.1 2.15 2.42 0 1.34-.94 2.42-2.15 2.42Z"
      />
    </svg>
  );
}

export function LoginPage() {
  const { isAuthenticated, isLoading, justLoggedOut, checkAuth } = useAuth();
  const { finishLogin, finishing } = useFinishLogin();
  const [redirecting, setRedirecting] = useState(false);

  const providersQuery = useQuery({
    queryKey: queryKeys.authProviders,
    queryFn: getAuthProviders,
    staleTime: 5 * 60 * 1000,
  });
  const providers = providersQuery.data ?? (providersQuery.isError ? FALLBACK_PROVIDERS : null);

  // Authentication is re-checked whenever the login page loads (except right after a logout).
  useEffect(() => {
    if (!justLoggedOut) void checkAuth();
  }, [checkAuth, justLoggedOut]);

  // Coming back from the provider's page through the browser's back/forward cache.
  useEffect(() => {
    const onPageShow = (event: PageTransitionEvent) => {
      if (event.persisted) setRedirecting(false);
    };
    window.addEventListener('pageshow', onPageShow);
    return () => window.removeEventListener('pageshow', onPageShow);
  }, []);

  const loginWithDiscord = async () => {
    setRedirecting(true);
    try {
      const { login_url } = await getLoginUrl('discord');
      window.location.assign(login_url);
    } catch (error) {
      console.error('Could not start Discord sign-in', error);
      toast.error('Authentication failed');
      setRedirecting(false);
    }
  };

  const onGoogleCredential = useCallback(
    async (credential: string) => {
      try {
        await finishLogin(await postGoogleCredential(credential));
      } catch (error) {
        console.error('Google sign-in failed', error);
        toast.error('Authentication failed');
      }
    },
    [finishLogin],
  );

  if (isAuthenticated && !finishing) return <Navigate to="/" replace />;

  const discordBusy = isLoading || redirecting || finishing || !providers;
  const discordConfigured = providers?.discord ?? true;
  // Without Discord the local account is the way in: offered first, and on a fresh instance
  // (no account yet) opened on "Create account".
  const localFirst = providers?.local === true && !discordConfigured;
  const localForm = providers?.local ? (
    <LocalLoginForm
      onSignedIn={finishLogin}
      disabled={finishing}
      initialMode={providers.first_account ? 'create' : 'sign-in'}
    />
  ) : null;

  return (
    <main className="auth-screen">
      <section className="auth-card" aria-labelledby="login-title">
        <p className="brand-mark" aria-hidden="true">
          <span className="brand-logo">C</span>
        </p>
        <h1 id="login-title" className="auth-title">
          Chronicler
        </h1>
        <p className="auth-lead">
          {localFirst
            ? 'Welcome! Sign in or create an account here to keep your sessions’ transcripts, summaries and chat.'
            : 'Welcome! Please log in with your Discord account to access your session transcripts and chat.'}
        </p>

        {localFirst ? (
          <>
            {localForm}
            <div className="divider" role="separator">
              <span>or</span>
            </div>
          </>
        ) : null}

        <div className="auth-actions">
          {discordConfigured ? (
            <button
              type="button"
              className="button button-discord button-block button-large"
              onClick={loginWithDiscord}
              disabled={discordBusy}
              aria-busy={discordBusy}
            >
              {discordBusy ? <Spinner label="Loading" labelHidden size="small" /> : <DiscordIcon />}
              <span>Login with Discord</span>
            </button>
          ) : (
            <div className="provider-unavailable">
              <button
                type="button"
                className="button button-discord button-block button-large"
                disabled
                aria-describedby="discord-off"
              >
                <DiscordIcon />
                <span>Login with Discord</span>
              </button>
              <p id="discord-off" className="muted small">
                Discord sign-in is not configured on this server.
              </p>
            </div>
          )}

          <GoogleSignInButton
            clientId={providers?.google ? providers.google_client_id : null}
            onCredential={onGoogleCredential}
          />
        </div>

        {providers?.local && !localFirst && (
          <>
            <div className="divider" role="separator">
              <span>or</span>
            </div>
            {localForm}
          </>
        )}

        <p className="auth-footer">Your data is securely stored and only accessible to you.</p>
      </section>
    </main>
  );
}
