import type { ReactNode } from 'react';

interface ScreenPlaceholderProps {
  title: string;
  children?: ReactNode;
}

/** A screen whose content is not built yet: its heading, and a plain statement saying so. */
export function ScreenPlaceholder({ title, children }: ScreenPlaceholderProps) {
  return (
    <div className="page">
      <header className="page-header">
        <h1 className="page-title">{title}</h1>
      </header>
      <p className="muted">This screen is not available yet.</p>
      {children}
    </div>
  );
}
