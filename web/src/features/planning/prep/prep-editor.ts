import type { PrepItem } from '@chronicler/contracts';
import { TaskItem } from '@tiptap/extension-task-item';
import { TaskList } from '@tiptap/extension-task-list';
import { Node, type Editor, type JSONContent } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';

/** A transaction the page made from the server's state: it is not an edit to send back. */
export const REMOTE_META = 'prepRemote';

/** A task item that knows which stored item it is (null: typed, not yet saved). */
const PrepTaskItem = TaskItem.extend({
  addAttributes() {
    return {
      ...this.parent?.(),
      prepId: {
        default: null,
        // A line split off an item (Enter) is a new item, not a second copy of the stored one.
        keepOnSplit: false,
        parseHTML: (el: HTMLElement) => el.getAttribute('data-prep-id'),
        renderHTML: (attrs: { prepId?: string | null }) =>
          attrs.prepId ? { 'data-prep-id': attrs.prepId } : {},
      },
    };
  },
}).configure({ nested: false, HTMLAttributes: { class: 'prep-task' } });

/** The checklist is one task list and nothing else: each line is an item. */
const ChecklistDocument = Node.create({ name: 'doc', topNode: true, content: 'taskList' });

export const prepExtensions = [
  ChecklistDocument,
  // Paragraphs and text with the usual marks and undo; no other blocks in a checklist.
  StarterKit.configure({
    document: false,
    heading: false,
    bulletList: false,
    orderedList: false,
    listItem: false,
    listKeymap: false,
    blockquote: false,
    codeBlock: false,
    horizontalRule: false,
    trailingNode: false,
    link: false,
  }),
  TaskList,
  PrepTaskItem,
];

/** The editor's content for the next plan's items (an empty line to type the first into). */
export function checklistContent(items: readonly PrepItem[]): JSONContent {
  const rows = items.length > 0 ? items : [null];
  return {
    type: 'doc',
    content: [
      {
        type: 'taskList',
        content: rows.map((item) => ({
          type: 'taskItem',
          attrs: { checked: item?.done ?? false, prepId: item?.id ?? null },
          content: [{ type: 'paragraph', ...(item ? { content: [{ type: 'text', text: item.text }] } : {}) }],
        })),
      },
    ],
  };
}

export interface ChecklistRow {
  prepId: string | null;
  checked: boolean;
  text: string;
  pos: number;
}

/** The items as the editor holds them, in order. */
export function checklistRows(editor: Editor): ChecklistRow[] {
  const rows: ChecklistRow[] = [];
  editor.state.doc.descendants((node, pos) => {
    if (node.type.name !== 'taskItem') return true;
    rows.push({
      prepId: (node.attrs.prepId as string | null) ?? null,
      checked: node.attrs.checked === true,
      text: node.textContent.replace(/\s+/g, ' ').trim(),
      pos,
    });
    return false;
  });
  return rows;
}

/** Sets attributes of the item at `pos` without making it an edit to send back. */
export function setRowAttrs(editor: Editor, pos: number, attrs: Record<string, unknown>): void {
  const node = editor.state.doc.nodeAt(pos);
  if (!node) return;
  const tr = editor.state.tr.setNodeMarkup(pos, undefined, { ...node.attrs, ...attrs });
  tr.setMeta(REMOTE_META, true).setMeta('addToHistory', false);
  editor.view.dispatch(tr);
}

/**
 * Adds items saved elsewhere (the planning AI's, another tab's) at the end of the checklist, in
 * place of its empty starting line when that is all it holds, without making it an edit to send back.
 */
export function appendRows(editor: Editor, items: readonly PrepItem[]): void {
  if (items.length === 0) return;
  const nodes = items.map((item) =>
    editor.schema.nodeFromJSON({
      type: 'taskItem',
      attrs: { checked: item.done, prepId: item.id },
      content: [{ type: 'paragraph', content: [{ type: 'text', text: item.text }] }],
    }),
  );
  const { doc } = editor.state;
  const list = doc.firstChild;
  if (!list) return;
  const only = list.childCount === 1 ? list.firstChild : null;
  const tr = editor.state.tr;
  if (only && !only.attrs.prepId && only.textContent.trim() === '')
    tr.replaceWith(1, 1 + only.nodeSize, nodes);
  else tr.insert(doc.content.size - 1, nodes);
  tr.setMeta(REMOTE_META, true).setMeta('addToHistory', false);
  editor.view.dispatch(tr);
}
