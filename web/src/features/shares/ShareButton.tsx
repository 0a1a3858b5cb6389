import { useState } from 'react';
import type { ShareKind } from '../../api/shares.ts';
import { ShareDialog } from './ShareDialog.tsx';

/** 'Share': opens the owner's read-only links to this session or campaign. */
export function ShareButton({
  kind,
  targetId,
  name,
  subject,
}: {
  kind: ShareKind;
  targetId: string;
  name: string;
  subject?: string;
}) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className="button button-secondary" onClick={() => setOpen(true)}>
        Share
      </button>
      {open ? (
        <ShareDialog
          kind={kind}
          targetId={targetId}
          name={name}
          {...(subject ? { subject } : {})}
          onClose={() => setOpen(false)}
        />
      ) : null}
    </>
  );
}
