interface SpinnerProps {
  /** Announced to assistive technology and, unless labelHidden, shown next to the spinner. */
  label: string;
  labelHidden?: boolean;
  size?: 'small' | 'medium' | 'large';
}

export function Spinner({ label, labelHidden = false, size = 'medium' }: SpinnerProps) {
  return (
    <span className={`spinner-wrap spinner-${size}`} role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span className={labelHidden ? 'visually-hidden' : 'spinner-label'}>{label}</span>
    </span>
  );
}

export function FullPageSpinner({ label }: { label: string }) {
  return (
    <div className="full-page-center">
      <Spinner label={label} size="large" />
    </div>
  );
}
