import { LOCAL_PASSWORD_MAX, LOCAL_PASSWORD_MIN, LOCAL_USERNAME_MAX } from '@chronicler/contracts';
import { useId, useState, type FormEvent } from 'react';
import toast from 'react-hot-toast';
import { postLocalLogin } from '../../api/auth.ts';
import { isApiError } from '../../api/http.ts';
import type { AuthCheckResponse } from '../../api/types.ts';
import './local-login.css';

interface LocalLoginFormProps {
  onSignedIn: (result: AuthCheckResponse) => Promise<boolean>;
  disabled?: boolean;
  /** The tab it opens on: 'create' on a fresh instance, where no account exists yet. */
  initialMode?: Mode;
}

type Mode = 'sign-in' | 'create';

/**
 * Local account sign-in, offered only when the server runs without Discord or Google: sign
 * in to an existing account, or create one with a password. The server's message is shown
 * when it refuses (a wrong name or password, a taken name, too many attempts).
 */
export function LocalLoginForm({
  onSignedIn,
  disabled = false,
  initialMode = 'sign-in',
}: LocalLoginFormProps) {
  const id = useId();
  const ids = {
    title: `${id}-title`,
    hint: `${id}-hint`,
    username: `${id}-username`,
    password: `${id}-password`,
    confirm: `${id}-confirm`,
    passwordHint: `${id}-password-hint`,
    error: `${id}-error`,
    note: `${id}-note`,
  };
  const [mode, setMode] = useState<Mode>(initialMode);
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const trimmed = username.trim();
  const creating = mode === 'create';

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!trimmed || !password || submitting) return;
    if (password.length < LOCAL_PASSWORD_MIN) {
      setError(`Password must be at least ${LOCAL_PASSWORD_MIN} characters.`);
      return;
    }
    if (creating && password !== confirm) {
      setError('The passwords do not match.');
      return;
    }
    setSubmitting(true);
    setError(null);
    try {
      const result = await postLocalLogin(trimmed, password, creating);
      if (!(await onSignedIn(result))) setSubmitting(false);
    } catch (cause) {
      // A refusal the server explains (a name too long, taken, a wrong password) shows its
      // words beside the form; the generic toast is only for failures it could not explain.
      const detail = isApiError(cause) && cause.detail ? cause.detail : null;
      if (!detail) toast.error('Authentication failed');
      setError(detail ?? 'Authentication failed');
      setSubmitting(false);
    }
  };

  const chooseMode = (next: Mode) => {
    setMode(next);
    setError(null);
    setConfirm('');
  };

  const busy = disabled || submitting;
  const describedBy = (...own: string[]) => [...own, ...(error ? [ids.error] : [])].join(' ');

  return (
    <section className="local-login" aria-labelledby={ids.title}>
      <h2 id={ids.title} className="local-login-title">
        Use a local account
      </h2>
      <p id={ids.hint} className="local-login-hint">
        A local account exists only on this server. No Discord or Google account is needed.
      </p>
      <form className="local-login-form" onSubmit={onSubmit} noValidate>
        <fieldset className="local-login-mode">
          <legend className="visually-hidden">Local account</legend>
          <label>
            <input
              type="radio"
              name={`${id}-mode`}
              value="sign-in"
              checked={!creating}
              onChange={() => chooseMode('sign-in')}
              disabled={busy}
            />
            Sign in
          </label>
          <label>
            <input
              type="radio"
              name={`${id}-mode`}
              value="create"
              checked={creating}
              onChange={() => chooseMode('create')}
              disabled={busy}
            />
            Create account
          </label>
        </fieldset>

        <label htmlFor={ids.username} className="field-label">
          Username
        </label>
        <input
          id={ids.username}
          className="text-input"
          type="text"
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={LOCAL_USERNAME_MAX}
          value={username}
          onChange={(event) => setUsername(event.target.value)}
          aria-describedby={describedBy(ids.hint)}
          aria-invalid={error ? true : undefined}
          disabled={busy}
          required
        />

        <label htmlFor={ids.password} className="field-label">
          Password
        </label>
        <input
          id={ids.password}
          className="text-input"
          type="password"
          name="password"
          autoComplete={creating ? 'new-password' : 'current-password'}
          minLength={LOCAL_PASSWORD_MIN}
          maxLength={LOCAL_PASSWORD_MAX}
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          aria-describedby={describedBy(ids.passwordHint)}
          aria-invalid={error ? true : undefined}
          disabled={busy}
          required
        />
        <p id={ids.passwordHint} className="local-login-note">
          At least {LOCAL_PASSWORD_MIN} characters.
        </p>

        {creating && (
          <>
            <label htmlFor={ids.confirm} className="field-label">
              Confirm password
            </label>
            <input
              id={ids.confirm}
              className="text-input"
              type="password"
              name="confirm-password"
              autoComplete="new-password"
              minLength={LOCAL_PASSWORD_MIN}
              maxLength={LOCAL_PASSWORD_MAX}
              value={confirm}
              onChange={(event) => setConfirm(event.target.value)}
              aria-describedby={error ? ids.error : undefined}
              disabled={busy}
              required
            />
          </>
        )}

        {error && (
          <p id={ids.error} className="field-error" role="alert">
            {error}
          </p>
        )}
        <button
          type="submit"
          className="button button-secondary button-block"
          disabled={busy || !trimmed || !password || (creating && !confirm)}
        >
          {submitting
            ? creating
              ? 'Creating account...'
              : 'Signing in...'
            : creating
              ? 'Create local account'
              : 'Sign in locally'}
        </button>
        {!creating && (
          <p id={ids.note} className="local-login-note">
            Made a local account before passwords were required? Sign in with its name and choose a password
            now: the first password entered for it becomes its password.
          </p>
        )}
      </form>
    </section>
  );
}
