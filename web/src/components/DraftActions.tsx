/**
 * The save and discard buttons under an editable list kept as a local draft (campaign
 * vocabulary, who plays whom), and the save error under them. Discard appears only while
 * the draft differs from what is saved.
 */
export function DraftActions({
  saveLabel,
  dirty,
  saving,
  error,
  onSave,
  onDiscard,
}: {
  saveLabel: string;
  dirty: boolean;
  saving: boolean;
  error: string | null;
  onSave: () => void;
  onDiscard: () => void;
}) {
  return (
    <>
      <div className="button-row group-form-actions">
        <button type="button" className="button button-primary" disabled={!dirty || saving} onClick={onSave}>
          {saving ? 'Saving...' : saveLabel}
        </button>
        {dirty && (
          <button type="button" className="button button-secondary" onClick={onDiscard}>
            Discard changes
          </button>
        )}
      </div>
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
    </>
  );
}
