import { EditorContent, useEditor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import ReactMarkdown from 'react-markdown';
import { classifyNotes } from './notes-content.ts';

/**
 * HTML goes through the editor's schema rather than into the page: ProseMirror keeps only
 * the nodes and marks it knows (no scripts, handlers, images or styles) and the link mark
 * refuses javascript: addresses.
 */
function HtmlNotes({ html }: { html: string }) {
  const editor = useEditor(
    {
      extensions: [StarterKit.configure({ link: { openOnClick: true } })],
      content: html,
      editable: false,
      editorProps: { attributes: { class: 'notes-rich-text', 'aria-label': 'Notes preview' } },
    },
    [html],
  );
  return <EditorContent editor={editor} />;
}

/** Notes as read: rendered HTML, raw rich-text blocks as plain text, anything else as markdown. */
export function NotesPreview({ content }: { content: string }) {
  const notes = classifyNotes(content);
  switch (notes.kind) {
    case 'empty':
      return <p className="muted notes-empty">No content to preview.</p>;
    case 'html':
      return <HtmlNotes html={notes.html} />;
    case 'blocks':
      return <div className="notes-plain-text">{notes.text}</div>;
    case 'markdown':
      return (
        <div className="notes-markdown">
          <ReactMarkdown>{notes.text}</ReactMarkdown>
        </div>
      );
  }
}
