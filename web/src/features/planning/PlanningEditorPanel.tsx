import { EditorContent, type Editor } from '@tiptap/react';
import { CloseIcon } from '../../components/icons.tsx';
import { PlanningToolbar } from './PlanningToolbar.tsx';

/**
 * The planning document beside the chat. It stays mounted while closed (only hidden), so the
 * editor keeps its content and the AI can still edit it.
 */
export function PlanningEditorPanel(props: {
  editor: Editor | null;
  open: boolean;
  onClose: () => void;
  /** The prep checklist, part of the document. */
  children?: React.ReactNode;
}) {
  const { editor } = props;
  return (
    <section className="planning-doc" aria-label="Planning document" hidden={!props.open}>
      <div className="planning-doc-header">
        <h2 className="card-title">Planning Document</h2>
        <button
          type="button"
          className="icon-button"
          aria-label="Close document"
          title="Close document"
          onClick={props.onClose}
        >
          <CloseIcon />
        </button>
      </div>
      {editor ? <PlanningToolbar editor={editor} /> : null}
      <EditorContent editor={editor} className="planning-editor" />
      {props.children}
    </section>
  );
}
