import { useId, useState, type FormEvent } from 'react';
import toast from 'react-hot-toast';
import { postLocalLogin } from '../../api/auth.ts';
import { isApiError } from '../../api/http.ts';
import type { AuthCheckResponse } from '../../api/types.ts';

interface LocalLoginFormProps {
  onSignedIn: (result: AuthCheckResponse) => Promise<boolean>;
  disabled?: boolean;
}

/** Local account sign-in, offered only when the server runs without Discord or Google (embedded mode). */
export function LocalLoginForm({ onSignedIn, disabled = false }: LocalLoginFormProps) {
  const inputId = useId();
  const hintId = useId();
  const errorId = useId();
  const [username, setUsername] = useState('');
  const [submitting, setSubmitting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const trimmed = username.trim();

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (!trimmed || submitting) return;
    setSubmitting(true);
    setError(null);
    try {
      const result = await postLocalLogin(trimmed);
      if (!(await onSignedIn(result))) setSubmitting(false);
    } catch (cause) {
      toast.error('Authentication failed');
      if (isApiError(cause) && cause.detail) setError(cause.detail);
      setSubmitting(false);
    }
  };

  return (
    <section className="local-login" aria-labelledby={`${inputId}-title`}>
      <h2 id={`${inputId}-title`} className="local-login-title">
        Use a local account
      </h2>
      <p id={hintId} className="local-login-hint">
        A local account exists only on this machine. No Discord or Google account is needed.
      </p>
      <form className="local-login-form" onSubmit={onSubmit} noValidate>
        <label htmlFor={inputId} className="field-label">
          Username
        </label>
        <input
          id={inputId}
          className="text-input"
          type="text"
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          maxLength={64}
          value={username}
          onChange={(event) => setUsername(event.target.value)}
          aria-describedby={error ? `${hintId} ${errorId}` : hintId}
          aria-invalid={error ? true : undefined}
          disabled={disabled || submitting}
          required
        />
        {error && (
          <p id={errorId} className="field-error" role="alert">
            {error}
          </p>
        )}
        <button
          type="submit"
          className="button button-secondary button-block"
          disabled={disabled || submitting || !trimmed}
        >
          {submitting ? 'Signing in...' : 'Sign in locally'}
        </button>
      </form>
    </section>
  );
}
