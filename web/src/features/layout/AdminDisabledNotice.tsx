import { WarningIcon } from '../../components/icons.tsx';
import { useAuth } from '../auth/useAuth.ts';

const ADMIN_DISABLED_TEXT = 'Admin features disabled for testing';

/** Shown while a real admin has switched admin features off (?disableAdmin=true). */
export function AdminDisabledNotice({ compact = false }: { compact?: boolean }) {
  const { adminOverrideDisabled } = useAuth();
  if (!adminOverrideDisabled) return null;
  return (
    <p
      className={compact ? 'admin-disabled-notice is-compact' : 'admin-disabled-notice'}
      role="status"
      title={compact ? ADMIN_DISABLED_TEXT : undefined}
    >
      <WarningIcon />
      <span className={compact ? 'visually-hidden' : undefined}>{ADMIN_DISABLED_TEXT}</span>
    </p>
  );
}
