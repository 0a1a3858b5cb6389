import Placeholder from '@tiptap/extension-placeholder';
import { useEditor, type Editor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { readItem, removeItem, writeItem } from '../../lib/storage.ts';

/** The document is saved 5 s after the last edit. */
const DOCUMENT_SAVE_MS = 5000;

/** The local storage key of a group's planning document: each group keeps its own. */
const planningDocumentKey = (groupId: string): string => `planning_document_${groupId}`;

export interface PlanningDocument {
  editor: Editor | null;
  /** The editor for callbacks that outlive a render (socket handlers). */
  editorRef: RefObject<Editor | null>;
  /** The document as stored when the workspace opened ('' when none). */
  initialDocument: string;
}

/**
 * A group's planning document in a rich-text editor, read from local storage once and
 * written back 5 s after the last edit (removed when emptied).
 */
export function usePlanningDocument(groupId: string): PlanningDocument {
  const storageKey = planningDocumentKey(groupId);
  const [initialDocument] = useState(() => readItem(storageKey) ?? '');
  const saveTimer = useRef<number | undefined>(undefined);

  const saveDocument = useCallback(
    (editor: Editor) => {
      window.clearTimeout(saveTimer.current);
      saveTimer.current = undefined;
      if (editor.isEmpty) removeItem(storageKey);
      else writeItem(storageKey, editor.getHTML());
    },
    [storageKey],
  );

  const editor = useEditor({
    extensions: [StarterKit, Placeholder.configure({ placeholder: 'Start writing your session plan...' })],
    content: initialDocument,
    // Named apart from the prep checklist's editor below it in the same panel.
    editorProps: { attributes: { 'aria-label': 'Session plan' } },
    onUpdate: ({ editor: e }) => {
      window.clearTimeout(saveTimer.current);
      saveTimer.current = window.setTimeout(() => saveDocument(e), DOCUMENT_SAVE_MS);
    },
  });
  const editorRef = useRef<Editor | null>(null);
  editorRef.current = editor;

  // An edit not yet saved is kept when the user leaves the page or the workspace.
  useEffect(() => {
    const flush = () => {
      if (saveTimer.current !== undefined && editorRef.current) saveDocument(editorRef.current);
    };
    window.addEventListener('pagehide', flush);
    return () => {
      window.removeEventListener('pagehide', flush);
      flush();
    };
  }, [saveDocument]);

  return { editor, editorRef, initialDocument };
}
