import type { AuthStore } from '../db/store.ts';

/** svc.auth.count-users: one aggregate over the users table (the admin dashboard's Total Users). */
export const countUsers = (store: AuthStore) => async (): Promise<{ total: number }> => ({
  total: await store.countUsers(),
});
