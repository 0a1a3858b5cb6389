import type { AuthProviders } from '@chronicler/contracts';
import type { AuthDeps } from '../sessions.ts';

/** svc.auth.get-providers: what the login page may offer. */
export const getProviders =
  ({ settings }: AuthDeps) =>
  (): AuthProviders => ({
    discord: settings.discord !== null,
    google: settings.google !== null,
    google_client_id: settings.google?.clientId ?? null,
    local: settings.localEnabled,
  });
