import { lazy, Suspense, useCallback, useEffect, useState } from 'react';
import { matchPath, Outlet, useLocation } from 'react-router-dom';
import { Spinner } from '../../components/Spinner.tsx';
import { MenuIcon } from '../../components/icons.tsx';
import { useIsMobile } from '../../lib/use-media-query.ts';
import { AdminDisabledNotice } from './AdminDisabledNotice.tsx';
import { Sidebar } from './Sidebar.tsx';

const SIDEBAR_ID = 'app-sidebar';

// Loaded when first opened: the chat (and its markdown) is not needed to show a page.
const ChatDrawer = lazy(() => import('../chat/ChatDrawer.tsx').then((m) => ({ default: m.ChatDrawer })));

export function MainLayout() {
  const isMobile = useIsMobile();
  const { pathname, search } = useLocation();
  const [collapsed, setCollapsed] = useState(false);
  const [mobileOpen, setMobileOpen] = useState(false);
  const closeMobile = useCallback(() => setMobileOpen(false), []);
  const [chatOpen, setChatOpen] = useState(false);
  // The chat is about the open transcript, if any; without one it shows its welcome guide.
  const transcriptId = matchPath('/sessions/:sessionId/*', pathname)?.params.sessionId ?? null;

  // Like the viewer's drawers, the chat closes whenever the selected transcript changes.
  useEffect(() => {
    setChatOpen(false);
  }, [transcriptId]);

  // On mobile the sidebar closes after every navigation (and when leaving mobile width).
  useEffect(() => {
    setMobileOpen(false);
  }, [pathname, search, isMobile]);

  useEffect(() => {
    if (!isMobile || !mobileOpen) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setMobileOpen(false);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [isMobile, mobileOpen]);

  const shellClasses = ['app-shell'];
  if (!isMobile && collapsed) shellClasses.push('sidebar-collapsed');
  if (isMobile && mobileOpen) shellClasses.push('drawer-open');

  return (
    <div className={shellClasses.join(' ')}>
      <a className="skip-link" href="#main-content">
        Skip to main content
      </a>
      {isMobile && (
        <header className="mobile-topbar">
          <button
            type="button"
            className="icon-button"
            onClick={() => setMobileOpen((open) => !open)}
            aria-label={mobileOpen ? 'Close sidebar' : 'Open sidebar'}
            aria-expanded={mobileOpen}
            aria-controls={SIDEBAR_ID}
          >
            <MenuIcon />
          </button>
          <span className="mobile-topbar-title">Chronicler</span>
          <AdminDisabledNotice compact />
        </header>
      )}

      <Sidebar
        id={SIDEBAR_ID}
        isMobile={isMobile}
        collapsed={collapsed}
        open={mobileOpen}
        onToggleCollapsed={() => setCollapsed((value) => !value)}
        onClose={closeMobile}
        onOpenChat={() => setChatOpen(true)}
      />
      {isMobile && mobileOpen && (
        <div className="sidebar-backdrop" onClick={closeMobile} aria-hidden="true" />
      )}

      <main id="main-content" className="main-content" tabIndex={-1}>
        <Suspense
          fallback={
            <div className="content-center">
              <Spinner label="Loading..." />
            </div>
          }
        >
          <Outlet />
        </Suspense>
      </main>
      {chatOpen ? (
        <Suspense fallback={null}>
          <ChatDrawer transcriptId={transcriptId} open onClose={() => setChatOpen(false)} />
        </Suspense>
      ) : null}
    </div>
  );
}
