import type { AuthProviders } from '@chronicler/contracts';
import type { AuthDeps } from '../sessions.ts';

/** svc.auth.get-providers: what the login page may offer. */
export const getProviders =
  ({ settings, store }: AuthDeps) =>
  async (): Promise<AuthProviders> => ({
    discord: settings.discord !== null,
    google: settings.google !== null,
    google_client_id: settings.google?.clientId ?? null,
    local: settings.localEnabled,
    first_account: settings.localEnabled && !(await store.anyUser()),
  });
