import { SUMMARY_MAX, tooLongMessage } from '@chronicler/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import toast from 'react-hot-toast';
import { errorDetail } from '../../api/http.ts';
import { generateSessionSummary, getLlmSummary } from '../../api/summaries.ts';
import { syncSessionInCaches, updateTranscriptSummary } from '../../api/transcripts.ts';
import type { TranscriptDetail, TranscriptSummaryItem } from '../../api/types.ts';
import { queryKeys } from '../../app/query-client.ts';
import { PencilIcon } from '../../components/icons.tsx';
import { Markdown } from '../../components/Markdown.tsx';
import { useAuth } from '../auth/useAuth.ts';
import { Modal, ModalActions } from '../dashboard/Modal.tsx';
import './summary.css';

/** The message that keeps a summary draft from being saved, or null when it can be. */
function summaryDraftError(draft: string, saved: string): string | null {
  const text = draft.trim();
  if (!text) return 'Summary content cannot be empty.';
  if (text !== saved.trim() && text.length > SUMMARY_MAX) return tooLongMessage('Summary', SUMMARY_MAX);
  return null;
}

const GENERATE_FALLBACK = 'Failed to generate summary. Please try again.';
const GENERATE_EMPTY_REPLY =
  'Failed to generate summary. The AI service might be unavailable or the transcript is empty.';

/** Under the session's own key, so invalidating the session refetches it too. */
const llmSummaryKey = (id: string) => [...queryKeys.transcript(id), 'llm-summary'] as const;

/** Admins only: the model's own text, kept beside the summary that may since have been edited. */
function LlmSummarySection({ sessionId }: { sessionId: string }) {
  const [open, setOpen] = useState(false);
  const query = useQuery({
    queryKey: llmSummaryKey(sessionId),
    queryFn: () => getLlmSummary(sessionId),
    enabled: open,
    retry: false,
  });
  let body;
  if (query.isPending) body = <p className="muted">Loading...</p>;
  else if (query.isError) {
    body = (
      <p className="notice notice-error" role="alert">
        {errorDetail(query.error, 'Failed to fetch LLM summary')}
      </p>
    );
  } else if (query.data.llm_summary.trim()) {
    body = <Markdown className="summary-llm-text" text={query.data.llm_summary} />;
  } else body = <p className="muted">No LLM summary available</p>;
  return (
    <section className="card summary-llm" aria-labelledby="viewer-llm-summary-title">
      <button
        type="button"
        className="summary-collapse-toggle"
        aria-expanded={open}
        onClick={() => setOpen((v) => !v)}
      >
        <h2 id="viewer-llm-summary-title" className="card-title">
          LLM Summary (Admin Only)
        </h2>
        <span aria-hidden="true">{open ? '\u25be' : '\u25b8'}</span>
      </button>
      {open ? body : null}
    </section>
  );
}

/**
 * The session's summary (ended sessions only), its editor, and AI generation, which is not
 * offered without a transcript to summarise (a failed transcription, say).
 */
export function SummarySection({
  session,
  hasTranscript = true,
}: {
  session: TranscriptSummaryItem;
  hasTranscript?: boolean;
}) {
  const queryClient = useQueryClient();
  const { isAdmin } = useAuth();
  const saved = session.summary ?? '';
  const [draft, setDraft] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [generateError, setGenerateError] = useState<string | null>(null);
  const [confirmReplace, setConfirmReplace] = useState(false);

  const generate = useMutation({
    mutationFn: () => generateSessionSummary(session.id),
    onSuccess: (reply) => {
      const summary = reply.summary?.trim() ? reply.summary : '';
      if (!summary) {
        toast.error('Failed to generate summary');
        setGenerateError(GENERATE_EMPTY_REPLY);
        return;
      }
      const updated = { ...session, summary, summary_status: 'done' as const };
      syncSessionInCaches(queryClient, updated);
      queryClient.setQueryData<TranscriptDetail>(queryKeys.transcript(session.id), (old) =>
        old ? { ...old, summary, summary_status: 'done' } : old,
      );
      void queryClient.invalidateQueries({ queryKey: llmSummaryKey(session.id) });
      toast.success('Summary generated successfully');
    },
    onError: (cause) => {
      console.error('Failed to generate summary', cause);
      toast.error('Failed to generate summary');
      setGenerateError(errorDetail(cause, GENERATE_FALLBACK));
    },
  });

  const startGenerate = () => {
    setConfirmReplace(false);
    setGenerateError(null);
    generate.mutate();
  };

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
      // A first summary is saved; one that was there is updated (the catalogue's two wordings).
      setSaveError(
        saved.trim()
          ? 'Failed to update summary. Please try again.'
          : 'Failed to save summary. Please try again.',
      );
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
          <div className="button-row summary-actions">
            {saved.trim() ? (
              <>
                <button
                  type="button"
                  className="button button-secondary button-compact"
                  aria-label="Edit summary"
                  disabled={generate.isPending}
                  onClick={() => {
                    setSaveError(null);
                    setDraft(saved);
                  }}
                >
                  <PencilIcon />
                  Edit
                </button>
                <button
                  type="button"
                  className="button button-secondary button-compact"
                  disabled={generate.isPending}
                  onClick={() => setConfirmReplace(true)}
                >
                  {generate.isPending ? 'Generating summary...' : 'Regenerate'}
                </button>
              </>
            ) : hasTranscript ? (
              <button
                type="button"
                className="button button-primary button-compact"
                disabled={generate.isPending}
                onClick={startGenerate}
              >
                {generate.isPending ? 'Generating summary...' : 'Generate Summary'}
              </button>
            ) : null}
          </div>
        ) : null}
      </div>

      {generate.isPending ? (
        <p className="summary-progress muted" role="status">
          <span className="spinner" aria-hidden="true" /> Generating summary...
        </p>
      ) : null}
      {generateError ? (
        <p className="notice notice-error" role="alert">
          {generateError}
        </p>
      ) : null}

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
        <Markdown className="viewer-summary-text" text={saved} />
      ) : (
        <p className="muted">No summary available</p>
      )}
      {confirmReplace ? (
        <Modal
          title="Replace Summary?"
          onClose={() => setConfirmReplace(false)}
          footer={
            <ModalActions
              onCancel={() => setConfirmReplace(false)}
              label="Replace"
              pendingLabel="Generating summary..."
              pending={generate.isPending}
              onConfirm={startGenerate}
            />
          }
        >
          <p>
            This session already has a summary. Generating a new one will replace it, including any edits you
            made. Continue?
          </p>
        </Modal>
      ) : null}
      {isAdmin ? <LlmSummarySection sessionId={session.id} /> : null}
    </section>
  );
}
