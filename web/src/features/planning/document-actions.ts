// AI document actions: an assistant reply that is a JSON object with string
// actionHint and aiContent, bare or inside a ``` code fence, edits the planning document
// instead of being shown. Actions: replaceSelection, insertAtCursor, append (the default).
import type { Editor } from '@tiptap/react';

type ActionHint = 'replaceSelection' | 'insertAtCursor' | 'append';

export interface DocumentAction {
  actionHint: ActionHint;
  aiContent: string;
}

/** The editor's selection when a message was sent, in ProseMirror positions, and its text. */
export interface SentSelection {
  from: number;
  to: number;
  text: string;
}

export const REPLACE_FAILED = 'The selected text has changed and could not be found for replacement';

const FENCE = /^```[a-zA-Z]*\s*\n?([\s\S]*?)\n?\s*```$/;

/** The action a reply asks for, or null when the reply is a chat message. */
export function parseDocumentAction(reply: string): DocumentAction | null {
  const trimmed = reply.trim();
  const body = FENCE.exec(trimmed)?.[1] ?? trimmed;
  if (!body.startsWith('{')) return null;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object') return null;
  const { actionHint, aiContent } = value as Record<string, unknown>;
  if (typeof actionHint !== 'string' || typeof aiContent !== 'string') return null;
  const hint: ActionHint =
    actionHint === 'replaceSelection' || actionHint === 'insertAtCursor' ? actionHint : 'append';
  return { actionHint: hint, aiContent };
}

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function inline(text: string): string {
  return escapeHtml(text)
    .replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>')
    .replace(/~~(.+?)~~/g, '<s>$1</s>')
    .replace(/(^|[^*])\*(?!\s)(.+?)\*(?!\*)/g, '$1<em>$2</em>')
    .replace(/(^|\W)_(?!\s)(.+?)_(?=\W|$)/g, '$1<em>$2</em>');
}

/**
 * The HTML the editor inserts for the AI's content: HTML as it is, otherwise light markdown
 * (headings 1-3, bullet and numbered lists, bold, italic, strike, paragraphs), the formats
 * the document's toolbar offers.
 */
function contentToHtml(content: string): string {
  const text = content.replace(/\r\n?/g, '\n').trim();
  if (/^<(h[1-6]|p|ul|ol|li|strong|em|s|br|blockquote|div)[\s>]/i.test(text)) return text;
  const html: string[] = [];
  let list: { tag: 'ul' | 'ol'; items: string[] } | null = null;
  let paragraph: string[] = [];
  const flushParagraph = () => {
    if (paragraph.length) html.push(`<p>${paragraph.map(inline).join('<br>')}</p>`);
    paragraph = [];
  };
  const flushList = () => {
    if (list)
      html.push(
        `<${list.tag}>${list.items.map((i) => `<li><p>${inline(i)}</p></li>`).join('')}</${list.tag}>`,
      );
    list = null;
  };
  for (const line of text.split('\n')) {
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const bullet = /^\s*[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
    if (heading) {
      flushParagraph();
      flushList();
      const level = Math.min(3, heading[1]!.length);
      html.push(`<h${level}>${inline(heading[2]!)}</h${level}>`);
    } else if (bullet || numbered) {
      flushParagraph();
      const tag = bullet ? 'ul' : 'ol';
      if (list && list.tag !== tag) flushList();
      list ??= { tag, items: [] };
      list.items.push((bullet ?? numbered)![1]!);
    } else if (!line.trim()) {
      flushParagraph();
      flushList();
    } else {
      flushList();
      paragraph.push(line.trim());
    }
  }
  flushParagraph();
  flushList();
  return html.join('');
}

/** Where the text appears inside one textblock of the document, as a position range. */
function findText(editor: Editor, text: string): { from: number; to: number } | null {
  if (!text) return null;
  let found: { from: number; to: number } | null = null;
  editor.state.doc.descendants((node, pos) => {
    if (found) return false;
    if (!node.isTextblock) return true;
    const at = node.textContent.indexOf(text);
    // Positions map one to one onto textContent only when the block holds text alone.
    let plain = true;
    node.forEach((child) => {
      if (!child.isText) plain = false;
    });
    if (at >= 0 && plain) found = { from: pos + 1 + at, to: pos + 1 + at + text.length };
    return false;
  });
  return found;
}

/**
 * Applies an action to the document. replaceSelection replaces the text that was selected
 * when the message was sent, where it still is, else where that text now appears; when it is
 * nowhere, it throws REPLACE_FAILED and the document is left as it was.
 */
export function applyDocumentAction(
  editor: Editor,
  action: DocumentAction,
  sent: SentSelection | null,
): void {
  const html = contentToHtml(action.aiContent);
  const docSize = editor.state.doc.content.size;
  if (action.actionHint === 'replaceSelection') {
    const original = sent?.text ?? '';
    if (!original) throw new Error(REPLACE_FAILED);
    let range: { from: number; to: number } | null = null;
    if (sent && sent.to <= docSize && editor.state.doc.textBetween(sent.from, sent.to, '\n') === original) {
      range = { from: sent.from, to: sent.to };
    } else {
      range = findText(editor, original);
    }
    if (!range) throw new Error(REPLACE_FAILED);
    // One line for text within one paragraph replaces exactly that text, inline: as a block it
    // would split the paragraph around it ("The / ogres / guard the bridge").
    const line = action.aiContent.trim();
    const inline =
      !line.includes('\n') &&
      editor.state.doc.resolve(range.from).sameParent(editor.state.doc.resolve(range.to));
    if (inline && line) editor.chain().focus().insertContentAt(range, { type: 'text', text: line }).run();
    else editor.chain().focus().insertContentAt(range, html).run();
    return;
  }
  if (action.actionHint === 'insertAtCursor') {
    const at = Math.min(sent?.to ?? editor.state.selection.to, docSize);
    editor.chain().focus().insertContentAt(at, html).run();
    return;
  }
  editor.chain().focus().insertContentAt(editor.state.doc.content.size, html).run();
}
