import { lazy, Suspense } from 'react';
import { createBrowserRouter, Outlet } from 'react-router-dom';
import { AuthCallbackPage } from '../features/auth/AuthCallbackPage.tsx';
import { AuthProvider } from '../features/auth/AuthProvider.tsx';
import { LoginPage } from '../features/auth/LoginPage.tsx';
import { RequireAdmin } from '../features/auth/RequireAdmin.tsx';
import { RequireAuth } from '../features/auth/RequireAuth.tsx';
import { DashboardPage } from '../features/dashboard/DashboardPage.tsx';
import { MainLayout } from '../features/layout/MainLayout.tsx';
import { NotFoundPage } from '../features/layout/NotFoundPage.tsx';
import { ScrollToTop } from '../lib/ScrollToTop.tsx';
import { RouteError } from './RouteError.tsx';

// Routes load on demand: the login page and the dashboard come first, each other screen
// (and its editors, charts, markdown) with its first visit. MainLayout's Suspense shows a
// spinner meanwhile.
const AdminPage = lazy(() =>
  import('../features/admin/AdminPage.tsx').then((m) => ({ default: m.AdminPage })),
);
const GroupDashboardPage = lazy(() =>
  import('../features/groups/GroupDashboardPage.tsx').then((m) => ({ default: m.GroupDashboardPage })),
);
const CodexPage = lazy(() =>
  import('../features/codex/CodexPage.tsx').then((m) => ({ default: m.CodexPage })),
);
const SearchResultsPage = lazy(() =>
  import('../features/search/SearchResultsPage.tsx').then((m) => ({ default: m.SearchResultsPage })),
);
const SharedPage = lazy(() =>
  import('../features/shares/SharedPage.tsx').then((m) => ({ default: m.SharedPage })),
);
const SessionNotesPage = lazy(() =>
  import('../features/notes/SessionNotesPage.tsx').then((m) => ({ default: m.SessionNotesPage })),
);
const PlanningPage = lazy(() =>
  import('../features/planning/PlanningPage.tsx').then((m) => ({ default: m.PlanningPage })),
);
const SessionCreatePage = lazy(() =>
  import('../features/sessions/SessionCreatePage.tsx').then((m) => ({ default: m.SessionCreatePage })),
);
const RecordPage = lazy(() =>
  import('../features/record/RecordPage.tsx').then((m) => ({ default: m.RecordPage })),
);
const SessionEditPage = lazy(() =>
  import('../features/sessions/SessionEditPage.tsx').then((m) => ({ default: m.SessionEditPage })),
);
const TranscriptViewerPage = lazy(() =>
  import('../features/transcripts/TranscriptViewerPage.tsx').then((m) => ({
    default: m.TranscriptViewerPage,
  })),
);
const DiscordServersPage = lazy(() =>
  import('../features/discord/DiscordServersPage.tsx').then((m) => ({ default: m.DiscordServersPage })),
);
const MyDataPage = lazy(() =>
  import('../features/mydata/MyDataPage.tsx').then((m) => ({ default: m.MyDataPage })),
);
const WelcomePage = lazy(() =>
  import('../features/welcome/WelcomePage.tsx').then((m) => ({ default: m.WelcomePage })),
);

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
      // A read-only link: no sign-in, outside the app's layout.
      {
        path: '/shared/:token',
        element: (
          <Suspense fallback={null}>
            <SharedPage />
          </Suspense>
        ),
      },
      {
        path: '/shared/:token/sessions/:sessionId',
        element: (
          <Suspense fallback={null}>
            <SharedPage />
          </Suspense>
        ),
      },
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
              { path: 'groups/:groupId/codex', element: <CodexPage /> },
              { path: 'groups/:groupId/add-session', element: <SessionCreatePage /> },
              { path: 'add-session', element: <SessionCreatePage /> },
              { path: 'record', element: <RecordPage /> },
              { path: 'groups/:groupId/record', element: <RecordPage /> },
              { path: 'sessions/:sessionId', element: <TranscriptViewerPage /> },
              { path: 'sessions/:sessionId/edit', element: <SessionEditPage /> },
              { path: 'sessions/:sessionId/notes', element: <SessionNotesPage /> },
              { path: 'search', element: <SearchResultsPage /> },
              { path: 'discord-servers', element: <DiscordServersPage /> },
              { path: 'discord-servers/:guildId', element: <DiscordServersPage /> },
              { path: 'my-data', element: <MyDataPage /> },
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
