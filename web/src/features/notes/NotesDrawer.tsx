import { useQuery, useQueryClient } from '@tanstack/react-query';
import Placeholder from '@tiptap/extension-placeholder';
import { EditorContent, useEditor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import toast from 'react-hot-toast';
import { getNotes, putNotes } from '../../api/notes.ts';
import type { SessionNotes } from '../../api/types.ts';
import { cacheTimes, queryKeys } from '../../app/query-client.ts';
import { CloseIcon } from '../../components/icons.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { notesToEditorHtml } from './notes-content.ts';
import { markdownToHtml } from './notes-markdown.tsx';
import './notes.css';

/** The editor is polled every 500 ms and saved silently 2 s after the last change. */
const POLL_MS = 500;
const AUTOSAVE_MS = 2000;

interface NotesDrawerProps {
  sessionId: string;
  open: boolean;
  onClose: () => void;
}

interface SaveOptions {
  notifySuccess: boolean;
  notifyFailure: boolean;
}

function NotesDrawerPanel({ sessionId, onClose }: { sessionId: string; onClose: () => void }) {
  const queryClient = useQueryClient();
  const titleId = useId();
  const panelRef = useRef<HTMLElement>(null);
  const notes = useQuery({
    queryKey: queryKeys.notes(sessionId),
    queryFn: () => getNotes(sessionId),
    ...cacheTimes.notes,
  });
  const editor = useEditor({
    extensions: [StarterKit, Placeholder.configure({ placeholder: 'Start writing your session notes...' })],
    content: '',
    editable: false,
    editorProps: {
      attributes: { class: 'notes-rich-text notes-editor-surface', 'aria-label': 'Session notes' },
    },
  });

  // The editor's HTML as of the last successful save (null until the notes have loaded).
  // A ref for the save and unmount paths, state for what the drawer shows.
  const lastSavedRef = useRef<string | null>(null);
  const [lastSaved, setLastSaved] = useState<string | null>(null);
  const [current, setCurrent] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [closing, setClosing] = useState(false);
  const inFlight = useRef<Promise<boolean>>(Promise.resolve(true));

  // The notes fill the editor once; later refetches must not overwrite what is being written.
  useEffect(() => {
    if (!editor || lastSavedRef.current !== null || notes.data === undefined) return;
    editor.commands.setContent(notesToEditorHtml(notes.data.content, markdownToHtml), { emitUpdate: false });
    editor.setEditable(true);
    const html = editor.getHTML();
    lastSavedRef.current = html;
    setLastSaved(html);
    setCurrent(html);
    editor.commands.focus('end');
  }, [editor, notes.data]);

  useEffect(() => {
    if (!editor) return;
    const timer = window.setInterval(() => {
      if (lastSavedRef.current !== null && !editor.isDestroyed) setCurrent(editor.getHTML());
    }, POLL_MS);
    return () => window.clearInterval(timer);
  }, [editor]);

  const save = useCallback(
    (options: SaveOptions): Promise<boolean> => {
      // One save at a time, each sending what the editor holds when its turn comes.
      const run = async (): Promise<boolean> => {
        if (!editor || editor.isDestroyed || lastSavedRef.current === null) return true;
        const html = editor.getHTML();
        if (html === lastSavedRef.current) return true;
        setSaving(true);
        try {
          const saved = await putNotes(sessionId, editor.isEmpty ? '' : html);
          queryClient.setQueryData<SessionNotes>(queryKeys.notes(sessionId), saved);
          lastSavedRef.current = html;
          setLastSaved(html);
          if (options.notifySuccess) toast.success('Notes saved successfully');
          return true;
        } catch (error) {
          console.error('Failed to save notes', error);
          if (options.notifyFailure) toast.error('Failed to save notes');
          return false;
        } finally {
          setSaving(false);
        }
      };
      const next = inFlight.current.then(run, run);
      inFlight.current = next;
      return next;
    },
    [editor, queryClient, sessionId],
  );

  const dirty = current !== null && lastSaved !== null && current !== lastSaved;

  // Silent auto-save 2 s after the last change the poll saw; a failed one is retried the same way.
  useEffect(() => {
    if (!dirty || saving) return;
    const timer = window.setTimeout(
      () => void save({ notifySuccess: false, notifyFailure: false }),
      AUTOSAVE_MS,
    );
    return () => window.clearTimeout(timer);
  }, [current, dirty, saving, save]);

  // Closed from outside (the session changed, the page went away) with edits not yet saved:
  // send them anyway, so nothing written is lost.
  useEffect(
    () => () => {
      if (!editor || editor.isDestroyed || lastSavedRef.current === null) return;
      const html = editor.getHTML();
      if (html !== lastSavedRef.current) {
        void putNotes(sessionId, editor.isEmpty ? '' : html)
          .then((saved) => queryClient.setQueryData<SessionNotes>(queryKeys.notes(sessionId), saved))
          .catch((error: unknown) => console.error('Failed to save notes', error));
      }
    },
    [editor, queryClient, sessionId],
  );

  const close = async () => {
    if (closing) return;
    setClosing(true);
    // Unsaved edits are saved first; if that fails the drawer stays open with them.
    const saved = await save({ notifySuccess: false, notifyFailure: true });
    setClosing(false);
    if (saved) onClose();
  };

  useEffect(() => {
    if (notes.isError) panelRef.current?.focus();
  }, [notes.isError]);

  const onKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      void close();
    }
  };

  return (
    <aside
      ref={panelRef}
      className="notes-drawer"
      role="dialog"
      aria-modal="false"
      aria-labelledby={titleId}
      tabIndex={-1}
      onKeyDown={onKeyDown}
    >
      <header className="notes-drawer-header">
        <div className="notes-drawer-heading">
          <h2 id={titleId} className="notes-drawer-title">
            Session Notes
          </h2>
          <span className="notes-drawer-status" aria-live="polite">
            {dirty ? 'Unsaved changes' : ''}
          </span>
        </div>
        <div className="notes-drawer-actions">
          <button
            type="button"
            className="button button-primary notes-drawer-save"
            disabled={!dirty || saving}
            onClick={() => {
              // The button disables itself once saved; writing goes on where it stopped.
              void save({ notifySuccess: true, notifyFailure: true }).then(() => editor?.commands.focus());
            }}
          >
            {saving ? 'Saving...' : 'Save'}
          </button>
          <button
            type="button"
            className="icon-button"
            aria-label="Close notes"
            title="Close notes"
            disabled={closing}
            onClick={() => void close()}
          >
            <CloseIcon />
          </button>
        </div>
      </header>
      <div className="notes-drawer-body">
        {notes.isPending ? (
          <div className="content-center">
            <Spinner label="Loading notes..." />
          </div>
        ) : notes.isError ? (
          <p className="notice notice-error" role="alert">
            Failed to load notes.
          </p>
        ) : null}
        <div hidden={!notes.isSuccess}>
          <EditorContent editor={editor} />
        </div>
      </div>
    </aside>
  );
}

/**
 * The notes of one session beside its transcript, as rich text. Mounted by the transcript
 * viewer; a new session id starts a new editor (after saving the previous session's edits).
 */
export function NotesDrawer({ sessionId, open, onClose }: NotesDrawerProps) {
  if (!open || !sessionId) return null;
  return <NotesDrawerPanel key={sessionId} sessionId={sessionId} onClose={onClose} />;
}
