import { useState } from 'react';
import { NavLink } from 'react-router-dom';
import {
  ChatIcon,
  CloseIcon,
  CollapseIcon,
  CompassIcon,
  ExpandIcon,
  HomeIcon,
  LogoutIcon,
  ServerIcon,
  ShieldIcon,
} from '../../components/icons.tsx';
import { useAuth } from '../auth/useAuth.ts';
import { AdminDisabledNotice } from './AdminDisabledNotice.tsx';
import { TranscriptBrowser } from './TranscriptBrowser.tsx';
import { UserAvatar } from './UserAvatar.tsx';

interface SidebarProps {
  id: string;
  isMobile: boolean;
  /** Desktop: narrowed to a rail of icons. */
  collapsed: boolean;
  /** Mobile: the drawer is shown. */
  open: boolean;
  onToggleCollapsed: () => void;
  onClose: () => void;
  /** Opens the chat drawer (its welcome guide when no transcript is selected). */
  onOpenChat: () => void;
}

function navClass({ isActive }: { isActive: boolean }) {
  return isActive ? 'nav-link is-active' : 'nav-link';
}

export function Sidebar({
  id,
  isMobile,
  collapsed,
  open,
  onToggleCollapsed,
  onClose,
  onOpenChat,
}: SidebarProps) {
  const { user, isAdmin, logout } = useAuth();
  const [loggingOut, setLoggingOut] = useState(false);
  const rail = !isMobile && collapsed;

  const onLogout = async () => {
    setLoggingOut(true);
    try {
      await logout();
    } finally {
      setLoggingOut(false);
    }
  };

  const classes = ['sidebar'];
  if (rail) classes.push('is-rail');
  if (isMobile) classes.push('is-drawer');
  if (isMobile && open) classes.push('is-open');

  return (
    <aside id={id} className={classes.join(' ')} aria-label="Sidebar">
      <div className="sidebar-header">
        {!rail && (
          <span className="sidebar-brand">
            <span className="brand-logo brand-logo-small" aria-hidden="true">
              C
            </span>
            Chronicler
          </span>
        )}
        {isMobile ? (
          <button type="button" className="icon-button" onClick={onClose} aria-label="Close sidebar">
            <CloseIcon />
          </button>
        ) : (
          <button
            type="button"
            className="icon-button"
            onClick={onToggleCollapsed}
            aria-label={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
            aria-expanded={!collapsed}
            aria-controls={`${id}-body`}
          >
            {collapsed ? <ExpandIcon /> : <CollapseIcon />}
          </button>
        )}
      </div>

      <div id={`${id}-body`} className="sidebar-body">
        {user && (
          <div className="user-block">
            <div className="user-identity" title={rail ? user.username : undefined}>
              <UserAvatar user={user} />
              {!rail && <span className="user-name">{user.username}</span>}
            </div>
            <nav aria-label="Main">
              <ul className="nav-list">
                <li>
                  <NavLink to="/" end className={navClass} title={rail ? 'Dashboard' : undefined}>
                    <HomeIcon />
                    <span className={rail ? 'visually-hidden' : undefined}>Dashboard</span>
                  </NavLink>
                </li>
                <li>
                  <NavLink to="/welcome" className={navClass} title={rail ? 'Getting Started' : undefined}>
                    <CompassIcon />
                    <span className={rail ? 'visually-hidden' : undefined}>Getting Started</span>
                  </NavLink>
                </li>
                <li>
                  <button
                    type="button"
                    className="nav-link nav-button"
                    onClick={() => {
                      if (isMobile) onClose();
                      onOpenChat();
                    }}
                    title={rail ? 'AI Chat' : undefined}
                  >
                    <ChatIcon />
                    <span className={rail ? 'visually-hidden' : undefined}>AI Chat</span>
                  </button>
                </li>
                <li>
                  <NavLink
                    to="/discord-servers"
                    className={navClass}
                    title={rail ? 'Discord servers' : undefined}
                  >
                    <ServerIcon />
                    <span className={rail ? 'visually-hidden' : undefined}>Discord servers</span>
                  </NavLink>
                </li>
                {user?.discord_id && (
                  <li>
                    <NavLink to="/my-data" className={navClass} title={rail ? 'My recorded data' : undefined}>
                      <ShieldIcon />
                      <span className={rail ? 'visually-hidden' : undefined}>My recorded data</span>
                    </NavLink>
                  </li>
                )}
                {isAdmin && (
                  <li>
                    <NavLink to="/admin" className={navClass} title={rail ? 'Admin' : undefined}>
                      <ShieldIcon />
                      <span className={rail ? 'visually-hidden' : undefined}>Admin</span>
                    </NavLink>
                  </li>
                )}
                <li>
                  <button
                    type="button"
                    className="nav-link nav-button"
                    onClick={onLogout}
                    disabled={loggingOut}
                    title={rail ? 'Logout' : undefined}
                  >
                    <LogoutIcon />
                    <span className={rail ? 'visually-hidden' : undefined}>
                      {loggingOut ? 'Logging out...' : 'Logout'}
                    </span>
                  </button>
                </li>
              </ul>
            </nav>
          </div>
        )}
        <AdminDisabledNotice compact={rail} />
        {/* The rail has no room for lists: expanding the sidebar brings the browser back. */}
        {user && !rail && <TranscriptBrowser />}
      </div>
    </aside>
  );
}
