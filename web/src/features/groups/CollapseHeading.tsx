import type { ReactNode } from 'react';
import { ChevronDownIcon } from '../../components/icons.tsx';

/** The title of a collapsible group-dashboard section: a button that opens and closes its body. */
export function CollapseHeading({
  open,
  bodyId,
  onToggle,
  children,
}: {
  open: boolean;
  bodyId: string;
  onToggle: () => void;
  children: ReactNode;
}) {
  return (
    <h2 className="card-title group-section-title">
      <button
        type="button"
        className="group-collapse"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={onToggle}
      >
        <span className={open ? 'group-chevron is-open' : 'group-chevron'}>
          <ChevronDownIcon />
        </span>
        {children}
      </button>
    </h2>
  );
}
