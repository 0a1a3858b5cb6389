import { useEffect, useId, useRef, type KeyboardEvent, type ReactNode } from 'react';

interface ModalProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** Shown under the body, usually the action buttons. */
  footer: ReactNode;
}

const FOCUSABLE =
  'input:not([disabled]), textarea:not([disabled]), select:not([disabled]), button:not([disabled]), a[href], [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog: labelled by its title, focus moves into it (first field, else first
 * control) and stays there on Tab, Escape or a click on the backdrop closes it, and focus
 * goes back to whatever had it before.
 */
export function Modal({ title, onClose, children, footer }: ModalProps) {
  const titleId = useId();
  const dialogRef = useRef<HTMLDivElement>(null);
  const onCloseRef = useRef(onClose);
  useEffect(() => {
    onCloseRef.current = onClose;
  });

  useEffect(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const dialog = dialogRef.current;
    const first = dialog?.querySelector<HTMLElement>(FOCUSABLE);
    (first ?? dialog)?.focus();
    return () => {
      if (previous?.isConnected) previous.focus();
    };
  }, []);

  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      onCloseRef.current();
      return;
    }
    if (event.key !== 'Tab' || !dialogRef.current) return;
    const items = [...dialogRef.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    if (items.length === 0) return;
    const firstItem = items[0]!;
    const lastItem = items[items.length - 1]!;
    if (event.shiftKey && document.activeElement === firstItem) {
      event.preventDefault();
      lastItem.focus();
    } else if (!event.shiftKey && document.activeElement === lastItem) {
      event.preventDefault();
      firstItem.focus();
    }
  };

  return (
    <div
      className="modal-backdrop"
      onMouseDown={(event) => {
        if (event.target === event.currentTarget) onCloseRef.current();
      }}
    >
      <div
        ref={dialogRef}
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        tabIndex={-1}
        onKeyDown={onKeyDown}
      >
        <h2 id={titleId} className="modal-title">
          {title}
        </h2>
        <div className="modal-body">{children}</div>
        <div className="modal-footer">{footer}</div>
      </div>
    </div>
  );
}

interface ModalActionsProps {
  onCancel: () => void;
  /** The action's label, and what it says while the action runs. */
  label: string;
  pendingLabel: string;
  pending: boolean;
  /** Disabled for another reason than running (nothing chosen, blank input). */
  disabled?: boolean;
  danger?: boolean;
  /** Submits this form (by id) instead of calling onConfirm. */
  form?: string;
  onConfirm?: () => void;
}

/** The footer every dialog has: Cancel, then the action (a submit button when `form` is given). */
export function ModalActions({
  onCancel,
  label,
  pendingLabel,
  pending,
  disabled = false,
  danger = false,
  form,
  onConfirm,
}: ModalActionsProps) {
  return (
    <div className="button-row modal-actions">
      <button type="button" className="button button-secondary" onClick={onCancel}>
        Cancel
      </button>
      <button
        type={form ? 'submit' : 'button'}
        form={form}
        className={danger ? 'button button-danger' : 'button button-primary'}
        disabled={disabled || pending}
        onClick={form ? undefined : onConfirm}
      >
        {pending ? pendingLabel : label}
      </button>
    </div>
  );
}
