import { useEffect, useRef, useState } from 'react';
import { loadGoogleIdentity } from './google-identity.ts';

interface GoogleSignInButtonProps {
  /** Null when Google sign-in is not configured: the container then stays empty and hidden. */
  clientId: string | null;
  onCredential: (credential: string) => void;
}

/** The search-engine sign-in button, rendered by Google's own script into this container. */
export function GoogleSignInButton({ clientId, onCredential }: GoogleSignInButtonProps) {
  const containerRef = useRef<HTMLDivElement>(null);
  const [unavailable, setUnavailable] = useState(false);
  const onCredentialRef = useRef(onCredential);
  useEffect(() => {
    onCredentialRef.current = onCredential;
  }, [onCredential]);

  useEffect(() => {
    if (!clientId) return;
    let cancelled = false;
    loadGoogleIdentity()
      .then((google) => {
        const container = containerRef.current;
        if (cancelled || !container) return;
        google.accounts.id.initialize({
          client_id: clientId,
          callback: (response) => onCredentialRef.current(response.credential),
          ux_mode: 'popup',
        });
        container.replaceChildren();
        google.accounts.id.renderButton(container, {
          type: 'standard',
          theme: 'outline',
          size: 'large',
          text: 'signin_with',
          shape: 'rectangular',
          logo_alignment: 'left',
          width: Math.min(400, Math.max(200, container.clientWidth || 320)),
        });
      })
      .catch((error: unknown) => {
        console.warn('Google sign-in is unavailable', error);
        if (!cancelled) setUnavailable(true);
      });
    return () => {
      cancelled = true;
    };
  }, [clientId]);

  return (
    <div
      ref={containerRef}
      id="google-signin-button"
      className="google-signin"
      hidden={!clientId || unavailable}
    />
  );
}
