// @vitest-environment happy-dom
import { Editor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { afterEach, describe, expect, it } from 'vitest';
import { applyDocumentAction, REPLACE_FAILED } from './document-actions.ts';

let editor: Editor | null = null;
afterEach(() => {
  editor?.destroy();
  editor = null;
});

function open(html: string): Editor {
  editor = new Editor({ extensions: [StarterKit], content: html });
  return editor;
}

/** Where `text` sits in the first paragraph, as the editor sends a selection. */
const selectionOf = (e: Editor, text: string) => {
  const from = 1 + e.state.doc.textContent.indexOf(text);
  return { from, to: from + text.length, text };
};

describe('replaceSelection in the planning document', () => {
  it('replaces exactly the selected words, inside their paragraph', () => {
    const e = open('<p>The ogres guard the bridge</p><p>Next scene</p>');
    applyDocumentAction(
      e,
      { actionHint: 'replaceSelection', aiContent: 'two hill trolls' },
      selectionOf(e, 'ogres'),
    );
    expect(e.getHTML()).toBe('<p>The two hill trolls guard the bridge</p><p>Next scene</p>');
  });

  it('fails with the specification’s message and leaves the document as it was when the text is gone', () => {
    const e = open('<p>The ogres guard the bridge</p>');
    const sent = selectionOf(e, 'ogres');
    e.commands.setContent('<p>The giants guard the bridge</p>');
    expect(() =>
      applyDocumentAction(e, { actionHint: 'replaceSelection', aiContent: 'trolls' }, sent),
    ).toThrow(REPLACE_FAILED);
    expect(e.getHTML()).toBe('<p>The giants guard the bridge</p>');
  });
});
