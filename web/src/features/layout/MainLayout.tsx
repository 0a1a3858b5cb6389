import { Suspense, useCallback, useEffect, useState } from 'react';
import { Outlet, useLocation } from 'react-router-dom';
import { Spinner } from '../../components/Spinner.tsx';
import { MenuIcon } from '../../components/icons.tsx';
import { useIsMobile } from '../../lib/use-media-query.ts';
import { AdminDisabledNotice } from './AdminDisabledNotice.tsx';
import { Sidebar } from './Sidebar.tsx';

const SIDEBAR_ID = 'app-sidebar';

export function MainLayout() {
  const isMobile = useIsMobile();
  const { pathname, search } = useLocation();
  const [collapsed, setCollapsed] = useState(false);
  const [mobileOpen, setMobileOpen] = useState(false);
  const closeMobile = useCallback(() => setMobileOpen(false), []);

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
    </div>
  );
}
