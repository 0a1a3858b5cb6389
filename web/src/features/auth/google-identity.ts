// The small part of Google Identity Services (https://accounts.google.com/gsi/client)
// the login page uses: initialise with the client id, render the sign-in button.
import { loadScript } from '../../lib/load-script.ts';

const GOOGLE_IDENTITY_SCRIPT = 'https://accounts.google.com/gsi/client';

interface GoogleCredentialResponse {
  credential: string;
}

interface GoogleIdentityApi {
  accounts: {
    id: {
      initialize(options: {
        client_id: string;
        callback: (response: GoogleCredentialResponse) => void;
        ux_mode?: 'popup' | 'redirect';
        auto_select?: boolean;
      }): void;
      renderButton(parent: HTMLElement, options: Record<string, string | number>): void;
    };
  };
}

declare global {
  interface Window {
    google?: GoogleIdentityApi;
  }
}

export async function loadGoogleIdentity(): Promise<GoogleIdentityApi> {
  await loadScript(GOOGLE_IDENTITY_SCRIPT);
  if (!window.google?.accounts?.id) throw new Error('Google Identity Services did not initialise');
  return window.google;
}
