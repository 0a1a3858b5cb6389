import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import toast from 'react-hot-toast';
import { syncSessionInCaches, updateTranscriptSummary } from '../../api/transcripts.ts';
import type { TranscriptSummaryItem } from '../../api/types.ts';
import { PencilIcon } from '../../components/icons.tsx';

/** The specification's summary limit (§9), also enforced by the server. */
export const SUMMARY_MAX = 10_000;

/** The message that keeps a summary draft from being saved, or null when it can be. */
export function summaryDraftError(draft: string, saved: string): string | null {
  const text = draft.trim();
  if (!text) return 'Summary content cannot be empty.';
  if (text !== saved.trim() && text.length > SUMMARY_MAX) return 'Summary cannot exceed 10,000 characters';
  return null;
}

/** The session's summary (ended sessions only) and its editor. */
export function SummarySection({ session }: { session: TranscriptSummaryItem }) {
  const queryClient = useQueryClient();
  const saved = session.summary ?? '';
  const [draft, setDraft] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);

  const save = useMutation({
    mutationFn: (summary: string) => updateTranscriptSummary(session.id, summary),
    onSuccess: (updated) => {
      syncSessionInCaches(queryClient, updated);
      toast.success('Summary updated successfully');
      setDraft(null);
    },
    onError: (cause) => {
      console.error('Failed to update summary', cause);
      toast.error('Failed to update summary');
      setSaveError('Failed to save summary. Please try again.');
    },
  });

  const editing = draft !== null;
  const problem = editing ? summaryDraftError(draft, saved) : null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (draft === null || problem || save.isPending) return;
    setSaveError(null);
    const summary = draft.trim();
    if (summary === saved.trim()) {
      setDraft(null);
      return;
    }
    save.mutate(summary);
  };

  return (
    <section className="card viewer-summary" aria-labelledby="viewer-summary-title">
      <div className="viewer-section-header">
        <h2 id="viewer-summary-title" className="card-title">
          Summary
        </h2>
        {!editing ? (
          <button
            type="button"
            className="button button-secondary button-compact"
            aria-label="Edit summary"
            onClick={() => {
              setSaveError(null);
              setDraft(saved);
            }}
          >
            <PencilIcon />
            Edit
          </button>
        ) : null}
      </div>

      {editing ? (
        <form onSubmit={submit} className="viewer-form" noValidate>
          <label className="visually-hidden" htmlFor="viewer-summary-input">
            Summary
          </label>
          <textarea
            id="viewer-summary-input"
            className="text-input viewer-textarea"
            rows={8}
            value={draft}
            aria-invalid={problem ? true : undefined}
            aria-describedby="viewer-summary-count"
            onChange={(event) => {
              setDraft(event.target.value);
              setSaveError(null);
            }}
          />
          <p id="viewer-summary-count" className="muted small viewer-char-count">
            {draft.length.toLocaleString('en-US')} / {SUMMARY_MAX.toLocaleString('en-US')} characters
          </p>
          {problem ? (
            <p className="field-error" role="alert">
              {problem}
            </p>
          ) : null}
          {saveError ? (
            <p className="notice notice-error" role="alert">
              {saveError}
            </p>
          ) : null}
          <div className="button-row">
            <button
              type="submit"
              className="button button-primary"
              disabled={Boolean(problem) || save.isPending}
            >
              {save.isPending ? 'Saving...' : 'Save'}
            </button>
            <button
              type="button"
              className="button button-secondary"
              disabled={save.isPending}
              onClick={() => {
                setDraft(null);
                setSaveError(null);
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      ) : saved.trim() ? (
        <p className="viewer-summary-text">{saved}</p>
      ) : (
        <p className="muted">No summary available</p>
      )}
    </section>
  );
}
