import { parsePrepAction, type PlanningEditorContext, type PlanningMessage } from '@chronicler/contracts';
import { useQueryClient } from '@tanstack/react-query';
import type { Editor } from '@tiptap/react';
import { useRef, useState, type RefObject } from 'react';
import { applyDocumentAction, parseDocumentAction, type SentSelection } from './document-actions.ts';
import { prepKey } from './prep/prep-cache.ts';
import { usePlanningSocket } from './use-planning-socket.ts';

const DOCUMENT_UPDATED = '✅ Document updated.';

export interface ShownMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
}

/** What the chat says for the items the planning AI added to the prep checklist. */
const prepAdded = (items: string[]): string => `✅ Added to the prep checklist: ${items.join('; ')}`;

/**
 * What the chat shows for a stored message: a document action reads as '✅ Document updated.',
 * a checklist action (applied by the planning service) as the items it added.
 */
function shown(message: PlanningMessage): ShownMessage {
  const prep = message.role === 'assistant' ? parsePrepAction(message.content) : null;
  if (prep) return { id: message.id, role: message.role, content: prepAdded(prep) };
  const isAction = message.role === 'assistant' && parseDocumentAction(message.content) !== null;
  return { id: message.id, role: message.role, content: isAction ? DOCUMENT_UPDATED : message.content };
}

/** The editor's content and selection as sent with a message, so a reply can edit them. */
function editorContext(editor: Editor | null): {
  context: PlanningEditorContext;
  sent: SentSelection | null;
} {
  if (!editor) return { context: { content: '', selection: null, selectedText: '' }, sent: null };
  const { from, to, empty } = editor.state.selection;
  const selectedText = empty ? '' : editor.state.doc.textBetween(from, to, '\n');
  return {
    context: {
      content: editor.getText({ blockSeparator: '\n\n' }),
      selection: { start: from, end: to },
      selectedText,
    },
    sent: { from, to, text: selectedText },
  };
}

export interface PlanningChatState {
  messages: ShownMessage[];
  /** A message was sent and its reply has not come yet. */
  waiting: boolean;
  connected: boolean;
  /** Sends a message with the document's context; false when nothing was sent. */
  send: (text: string) => boolean;
}

/**
 * The planning conversation over the group's socket. A reply that is a document action
 * edits the document (opening it with `onDocumentEdit`) instead of being shown.
 */
export function usePlanningChat(
  groupId: string,
  editorRef: RefObject<Editor | null>,
  onDocumentEdit: () => void,
): PlanningChatState {
  const [messages, setMessages] = useState<ShownMessage[]>([]);
  const [waiting, setWaiting] = useState(false);
  const sentSelectionRef = useRef<SentSelection | null>(null);
  const queryClient = useQueryClient();

  const socket = usePlanningSocket(groupId, {
    onHistory: (history) => {
      setMessages(history.map(shown));
      setWaiting(false);
    },
    onMessage: (message) => {
      setWaiting(false);
      if (message.role === 'assistant' && parsePrepAction(message.content)) {
        // The planning service already added the items: the checklist shows them once refetched.
        void queryClient.invalidateQueries({ queryKey: prepKey(groupId) });
        setMessages((old) => [...old, shown(message)]);
        return;
      }
      const action = message.role === 'assistant' ? parseDocumentAction(message.content) : null;
      if (!action) {
        setMessages((old) => [...old, shown(message)]);
        return;
      }
      const current = editorRef.current;
      if (!current) return;
      onDocumentEdit();
      try {
        applyDocumentAction(current, action, sentSelectionRef.current);
        setMessages((old) => [...old, { id: message.id, role: 'assistant', content: DOCUMENT_UPDATED }]);
      } catch (error) {
        const text = error instanceof Error ? error.message : String(error);
        console.error('Planning: document action failed', error);
        window.alert(`Could not replace text: ${text}`);
      }
    },
    onError: (error) => {
      console.error('Planning socket error:', error);
      setWaiting(false);
    },
  });

  const send = (text: string): boolean => {
    const content = text.trim();
    if (!content || waiting) return false;
    const { context, sent } = editorContext(editorRef.current);
    if (!socket.send(content, context)) {
      console.error('Planning: message not sent (not connected or no auth token)');
      return false;
    }
    sentSelectionRef.current = sent;
    setMessages((old) => [...old, { id: `local-${Date.now()}`, role: 'user', content }]);
    setWaiting(true);
    return true;
  };

  return { messages, waiting, connected: socket.connected, send };
}
