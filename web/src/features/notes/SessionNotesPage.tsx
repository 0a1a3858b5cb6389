import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import toast from 'react-hot-toast';
import { useNavigate, useParams } from 'react-router-dom';
import { isApiError } from '../../api/http.ts';
import { getNotes, putNotes } from '../../api/notes.ts';
import { getTranscript } from '../../api/transcripts.ts';
import type { SessionNotes } from '../../api/types.ts';
import { cacheTimes, queryKeys } from '../../app/query-client.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { notesToMarkdown } from './notes-content.ts';
import { htmlToMarkdown, markdownToHtml } from './notes-markdown.tsx';
import { NotesPreview } from './NotesPreview.tsx';
import './notes.css';

const noRetryOnClientError = (count: number, error: unknown) =>
  count < 2 && !(isApiError(error) && error.httpStatus !== undefined && error.httpStatus < 500);

function NotesEditor({ sessionId }: { sessionId: string }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const textareaId = useId();
  const [previewing, setPreviewing] = useState(true);
  const [text, setText] = useState('');

  const session = useQuery({
    queryKey: queryKeys.transcript(sessionId),
    queryFn: () => getTranscript(sessionId),
    ...cacheTimes.transcriptDetail,
    retry: noRetryOnClientError,
  });
  const notes = useQuery({
    queryKey: queryKeys.notes(sessionId),
    queryFn: () => getNotes(sessionId),
    ...cacheTimes.notes,
    retry: noRetryOnClientError,
  });

  // The editor takes the server's text whenever that text changes (first load, a save
  // elsewhere); a refetch that brings the same text leaves the user's draft alone. Notes are
  // stored as HTML (the drawer's format); the textarea edits them as markdown.
  const serverContent = notes.data?.content;
  const [loadedText, setLoadedText] = useState<string | null>(null);
  useEffect(() => {
    if (serverContent === undefined) return;
    const markdown = notesToMarkdown(serverContent, htmlToMarkdown);
    setText(markdown);
    setLoadedText(markdown);
  }, [serverContent]);
  // Until the user edits, the preview shows the notes as stored (HTML rendered, old
  // rich-text blocks as plain text); after an edit, the markdown being written.
  const previewContent = text === loadedText && serverContent !== undefined ? serverContent : text;

  const save = useMutation({
    mutationFn: (markdown: string) => putNotes(sessionId, markdownToHtml(markdown)),
    onSuccess: (saved) => {
      queryClient.setQueryData<SessionNotes>(queryKeys.notes(sessionId), saved);
      toast.success('Notes saved successfully');
    },
    onError: (error) => {
      console.error('Failed to save notes', error);
      toast.error('Failed to save notes');
      void notes.refetch();
    },
  });

  const title = session.data?.name ? `${session.data.name} - Notes` : 'Session Notes';

  return (
    <div className="page page-narrow notes-page">
      <div className="notes-back">
        <button
          type="button"
          className="button button-secondary"
          onClick={() => void navigate(`/sessions/${sessionId}`)}
        >
          <span aria-hidden="true">&larr;</span> Back to Session
        </button>
      </div>
      <header className="page-header notes-header">
        <h1 className="page-title">{title}</h1>
        <div className="notes-toolbar">
          <div className="segmented" role="group" aria-label="Notes view">
            <button
              type="button"
              className="segmented-option"
              aria-pressed={!previewing}
              onClick={() => setPreviewing(false)}
            >
              Edit
            </button>
            <button
              type="button"
              className="segmented-option"
              aria-pressed={previewing}
              onClick={() => setPreviewing(true)}
            >
              Preview
            </button>
          </div>
          <button
            type="button"
            className="button button-primary"
            disabled={save.isPending || notes.isPending || notes.isError}
            onClick={() => save.mutate(text)}
          >
            {save.isPending ? 'Saving...' : 'Save'}
          </button>
        </div>
      </header>

      {notes.isPending ? (
        <div className="content-center">
          <Spinner label="Loading notes..." />
        </div>
      ) : notes.isError ? (
        <p className="notice notice-error" role="alert">
          {isApiError(notes.error) && notes.error.httpStatus === 404
            ? 'Session not found.'
            : 'Failed to load notes.'}
        </p>
      ) : previewing ? (
        <section className="card notes-preview" aria-label="Preview">
          <NotesPreview content={previewContent} />
        </section>
      ) : (
        <div className="notes-edit">
          <label className="visually-hidden" htmlFor={textareaId}>
            Notes
          </label>
          <textarea
            id={textareaId}
            className="text-input notes-textarea"
            value={text}
            rows={20}
            placeholder="Write your notes here. Markdown is supported."
            onChange={(event) => setText(event.target.value)}
          />
        </div>
      )}
    </div>
  );
}

/** /sessions/:sessionId/notes. */
export function SessionNotesPage() {
  const sessionId = (useParams().sessionId ?? '').trim();
  if (!sessionId) {
    return (
      <div className="page page-narrow">
        <p className="notice notice-error" role="alert">
          Invalid session ID.
        </p>
      </div>
    );
  }
  // Keyed: another session's notes never show in this one's editor.
  return <NotesEditor key={sessionId} sessionId={sessionId} />;
}
