import { useState, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import { PencilIcon } from '../../../components/icons.tsx';
import type { ViewLine } from '../transcript-view.ts';

/** What the viewer can do with a final line: edit its text in place, or put back its original. */
export interface LineTools {
  /** The line's number (its place among the transcript's lines) and its original when edited. */
  lineOf(key: string): { lineNo: number; original: string | null } | undefined;
  save(lineNo: number, text: string): Promise<unknown>;
  revert(lineNo: number): Promise<unknown>;
}

/**
 * A transcript row that can be edited in place: double-click or the pencil opens the line's
 * text in a box, Enter saves and Escape cancels. An edited line says so and can be reverted.
 */
export function EditableRow({
  line,
  tools,
  children,
}: {
  line: ViewLine;
  tools: LineTools;
  children: ReactNode;
}) {
  const [draft, setDraft] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const info = tools.lineOf(line.key);
  if (!info) return children;
  const { lineNo, original } = info;

  const run = async (action: () => Promise<unknown>) => {
    setSaving(true);
    try {
      await action();
      setDraft(null);
    } catch {
      // The caller has said what went wrong; the box stays open with the text as typed.
    } finally {
      setSaving(false);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (draft === null || saving || !draft.trim()) return;
    if (draft.trim() === line.text.trim()) setDraft(null);
    else void run(() => tools.save(lineNo, draft));
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      setDraft(null);
    }
  };

  if (draft !== null) {
    return (
      <form className="line-edit" onSubmit={submit}>
        <span className="line-edit-head small muted">
          {line.time ? `[${line.time}] ` : ''}
          {line.speaker ? `${line.speaker}:` : ''}
        </span>
        <input
          className="text-input line-edit-input"
          aria-label={`Text of line ${lineNo}`}
          value={draft}
          autoFocus
          disabled={saving}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <button
          type="submit"
          className="button button-primary button-compact"
          disabled={saving || !draft.trim()}
        >
          {saving ? 'Saving...' : 'Save'}
        </button>
        <button
          type="button"
          className="button button-secondary button-compact"
          onClick={() => setDraft(null)}
        >
          Cancel
        </button>
      </form>
    );
  }
  return (
    <div className="line-editable" onDoubleClick={() => setDraft(line.text)}>
      <div className="line-editable-text">{children}</div>
      <span className="line-tools">
        {original !== null ? (
          <>
            <span className="line-edited small" title={`Originally: ${original}`}>
              edited
            </span>
            <button
              type="button"
              className="link-button small"
              disabled={saving}
              title={`Put back: ${original}`}
              onClick={() => void run(() => tools.revert(lineNo))}
            >
              Revert
            </button>
          </>
        ) : null}
        <button
          type="button"
          className="icon-button line-edit-button"
          aria-label={`Edit line ${lineNo}`}
          title="Edit line (or double-click it)"
          onClick={() => setDraft(line.text)}
        >
          <PencilIcon />
        </button>
      </span>
    </div>
  );
}
