import { Navigate, Outlet } from 'react-router-dom';
import { FullPageSpinner } from '../../components/Spinner.tsx';
import { useAuth } from './useAuth.ts';

/** Guards every route except /login and /auth/callback. */
export function RequireAuth() {
  const { status } = useAuth();
  if (status === 'loading') return <FullPageSpinner label="Verifying authentication..." />;
  if (status !== 'authenticated') return <Navigate to="/login" replace />;
  return <Outlet />;
}
