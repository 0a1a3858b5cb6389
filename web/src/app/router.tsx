import { createBrowserRouter, Outlet } from 'react-router-dom';
import { AdminPage } from '../features/admin/AdminPage.tsx';
import { AuthCallbackPage } from '../features/auth/AuthCallbackPage.tsx';
import { AuthProvider } from '../features/auth/AuthProvider.tsx';
import { LoginPage } from '../features/auth/LoginPage.tsx';
import { RequireAdmin } from '../features/auth/RequireAdmin.tsx';
import { RequireAuth } from '../features/auth/RequireAuth.tsx';
import { DashboardPage } from '../features/dashboard/DashboardPage.tsx';
import { GroupDashboardPage } from '../features/groups/GroupDashboardPage.tsx';
import { MainLayout } from '../features/layout/MainLayout.tsx';
import { NotFoundPage } from '../features/layout/NotFoundPage.tsx';
import { SessionNotesPage } from '../features/notes/SessionNotesPage.tsx';
import { PlanningPage } from '../features/planning/PlanningPage.tsx';
import { SessionCreatePage } from '../features/sessions/SessionCreatePage.tsx';
import { SessionEditPage } from '../features/sessions/SessionEditPage.tsx';
import { TranscriptViewerPage } from '../features/transcripts/TranscriptViewerPage.tsx';
import { WelcomePage } from '../features/welcome/WelcomePage.tsx';
import { ScrollToTop } from '../lib/ScrollToTop.tsx';
import { RouteError } from './RouteError.tsx';

/** Inside the router so that auth can navigate and read the query (disableAdmin). */
function Root() {
  return (
    <AuthProvider>
      <ScrollToTop />
      <Outlet />
    </AuthProvider>
  );
}

export const router = createBrowserRouter([
  {
    element: <Root />,
    errorElement: <RouteError />,
    children: [
      { path: '/login', element: <LoginPage /> },
      { path: '/auth/callback', element: <AuthCallbackPage /> },
      {
        element: <RequireAuth />,
        children: [
          {
            element: <MainLayout />,
            children: [
              { index: true, element: <DashboardPage /> },
              { path: 'welcome', element: <WelcomePage /> },
              { path: 'groups/:groupId', element: <GroupDashboardPage /> },
              { path: 'groups/:groupId/planning', element: <PlanningPage /> },
              { path: 'groups/:groupId/add-session', element: <SessionCreatePage /> },
              { path: 'add-session', element: <SessionCreatePage /> },
              { path: 'sessions/:sessionId', element: <TranscriptViewerPage /> },
              { path: 'sessions/:sessionId/edit', element: <SessionEditPage /> },
              { path: 'sessions/:sessionId/notes', element: <SessionNotesPage /> },
              {
                path: 'admin',
                element: (
                  <RequireAdmin>
                    <AdminPage />
                  </RequireAdmin>
                ),
              },
              { path: '*', element: <NotFoundPage /> },
            ],
          },
        ],
      },
    ],
  },
]);
