import { useEffect } from 'react';
import { useLocation } from 'react-router-dom';
import { writeAdminOverrideDisabled } from './auth-storage.ts';

/** The query parameter honoured on any page: disableAdmin=true switches admin features off, false back on. */
const DISABLE_ADMIN_PARAM = 'disableAdmin';

/**
 * Applies ?disableAdmin=true|false for a real admin: stored under admin_override_disabled
 * (true) or removed (false). For anyone else the parameter does nothing, since there are
 * no admin rights to switch off. It is re-read when the user becomes known, so a link
 * opened before the auth check finished still takes effect.
 */
export function useAdminOverrideParam(isRealAdmin: boolean, setDisabled: (disabled: boolean) => void): void {
  const { search } = useLocation();
  const param = new URLSearchParams(search).get(DISABLE_ADMIN_PARAM);

  useEffect(() => {
    if (!isRealAdmin) return;
    if (param === 'true') {
      writeAdminOverrideDisabled(true);
      setDisabled(true);
    } else if (param === 'false') {
      writeAdminOverrideDisabled(false);
      setDisabled(false);
    }
  }, [isRealAdmin, param, setDisabled]);
}
