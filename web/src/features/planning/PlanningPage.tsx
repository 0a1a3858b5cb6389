import type { PlanningEditorContext, PlanningMessage } from '@chronicler/contracts';
import { PLANNING_SUGGESTIONS_MESSAGE } from '@chronicler/contracts';
import { useQuery } from '@tanstack/react-query';
import Placeholder from '@tiptap/extension-placeholder';
import { EditorContent, useEditor, useEditorState, type Editor } from '@tiptap/react';
import StarterKit from '@tiptap/starter-kit';
import { useCallback, useEffect, useId, useRef, useState, type KeyboardEvent } from 'react';
import ReactMarkdown from 'react-markdown';
import { useNavigate, useParams } from 'react-router-dom';
import { listGroups } from '../../api/lists.ts';
import type { GroupSummaryItem } from '../../api/types.ts';
import { cacheTimes, queryKeys } from '../../app/query-client.ts';
import {
  ArrowLeftIcon,
  BulletListIcon,
  CloseIcon,
  DocIcon,
  NumberedListIcon,
  SendIcon,
  SparkIcon,
} from '../../components/icons.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { readItem, removeItem, writeItem } from '../../lib/storage.ts';
import { useMediaQuery } from '../../lib/use-media-query.ts';
import { openPlanningSocket, type PlanningSocket } from '../../realtime/planning-socket.ts';
import { findGroup, groupRouteId } from '../groups/session-data.ts';
import { applyDocumentAction, parseDocumentAction, type SentSelection } from './document-actions.ts';
import './planning.css';

/** The document is saved 5 s after the last edit; the connection is polled every second. */
const DOCUMENT_SAVE_MS = 5000;
const CONNECTION_POLL_MS = 1000;
/** The planning workspace stacks its panels, chat full width, at this width and below. */
const NARROW_QUERY = '(max-width: 767px)';
export const DOCUMENT_UPDATED = '✅ Document updated.';

/** The local storage key of a group's planning document: each group keeps its own. */
export const planningDocumentKey = (groupId: string): string => `planning_document_${groupId}`;

interface ShownMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
}

/** What the chat shows for a stored message: a document action reads as '✅ Document updated.'. */
function shown(message: PlanningMessage): ShownMessage {
  const isAction = message.role === 'assistant' && parseDocumentAction(message.content) !== null;
  return { id: message.id, role: message.role, content: isAction ? DOCUMENT_UPDATED : message.content };
}

function GroupNotFound() {
  const navigate = useNavigate();
  return (
    <div className="page">
      <header className="page-header">
        <h1 className="page-title">Group not found</h1>
      </header>
      <p className="muted">The selected group for planning could not be found.</p>
      <p>
        <button type="button" className="button button-secondary" onClick={() => navigate('/')}>
          Back to Groups
        </button>
      </p>
    </div>
  );
}

function ToolbarButton(props: {
  label: string;
  active: boolean;
  onClick: () => void;
  children: React.ReactNode;
}) {
  return (
    <button
      type="button"
      className={props.active ? 'planning-tool is-active' : 'planning-tool'}
      aria-label={props.label}
      title={props.label}
      aria-pressed={props.active}
      // Keeps the editor's selection: a mousedown on the button would otherwise take focus.
      onMouseDown={(event) => event.preventDefault()}
      onClick={props.onClick}
    >
      {props.children}
    </button>
  );
}

function Toolbar({ editor }: { editor: Editor }) {
  const state = useEditorState({
    editor,
    selector: ({ editor: e }) => ({
      h1: e.isActive('heading', { level: 1 }),
      h2: e.isActive('heading', { level: 2 }),
      h3: e.isActive('heading', { level: 3 }),
      bold: e.isActive('bold'),
      italic: e.isActive('italic'),
      strike: e.isActive('strike'),
      bullet: e.isActive('bulletList'),
      ordered: e.isActive('orderedList'),
    }),
  });
  const chain = () => editor.chain().focus();
  return (
    <div className="planning-toolbar" role="toolbar" aria-label="Formatting">
      {([1, 2, 3] as const).map((level) => (
        <ToolbarButton
          key={level}
          label={`Heading ${level}`}
          active={state[`h${level}`]}
          onClick={() => chain().toggleHeading({ level }).run()}
        >
          {`H${level}`}
        </ToolbarButton>
      ))}
      <ToolbarButton label="Bold" active={state.bold} onClick={() => chain().toggleBold().run()}>
        <strong>B</strong>
      </ToolbarButton>
      <ToolbarButton label="Italic" active={state.italic} onClick={() => chain().toggleItalic().run()}>
        <em>I</em>
      </ToolbarButton>
      <ToolbarButton label="Strike" active={state.strike} onClick={() => chain().toggleStrike().run()}>
        <s>S</s>
      </ToolbarButton>
      <ToolbarButton
        label="Bullet list"
        active={state.bullet}
        onClick={() => chain().toggleBulletList().run()}
      >
        <BulletListIcon />
      </ToolbarButton>
      <ToolbarButton
        label="Numbered list"
        active={state.ordered}
        onClick={() => chain().toggleOrderedList().run()}
      >
        <NumberedListIcon />
      </ToolbarButton>
    </div>
  );
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

function PlanningWorkspace({ group }: { group: GroupSummaryItem }) {
  const navigate = useNavigate();
  const routeId = groupRouteId(group);
  const storageKey = planningDocumentKey(routeId);
  const narrow = useMediaQuery(NARROW_QUERY);
  const inputId = useId();
  const [initialDocument] = useState(() => readItem(storageKey) ?? '');
  const [docOpen, setDocOpen] = useState(
    () => initialDocument.trim() !== '' && !window.matchMedia(NARROW_QUERY).matches,
  );
  const [messages, setMessages] = useState<ShownMessage[]>([]);
  const [input, setInput] = useState('');
  const [waiting, setWaiting] = useState(false);
  const [connected, setConnected] = useState(false);
  const socketRef = useRef<PlanningSocket | null>(null);
  const sentSelectionRef = useRef<SentSelection | null>(null);
  const saveTimer = useRef<number | undefined>(undefined);
  const listRef = useRef<HTMLDivElement>(null);

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

  useEffect(() => {
    const socket = openPlanningSocket(routeId, {
      onHistory: (history) => {
        setMessages(history.map(shown));
        setWaiting(false);
      },
      onMessage: (message) => {
        setWaiting(false);
        const action = message.role === 'assistant' ? parseDocumentAction(message.content) : null;
        if (!action) {
          setMessages((old) => [...old, shown(message)]);
          return;
        }
        const current = editorRef.current;
        if (!current) return;
        setDocOpen(true);
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
    socketRef.current = socket;
    const poll = window.setInterval(() => setConnected(socket.isConnected()), CONNECTION_POLL_MS);
    return () => {
      window.clearInterval(poll);
      socket.close();
      socketRef.current = null;
    };
  }, [routeId]);

  useEffect(() => {
    listRef.current?.scrollTo({ top: listRef.current.scrollHeight });
  }, [messages, waiting]);

  const send = (text: string) => {
    const content = text.trim();
    if (!content || waiting) return;
    const socket = socketRef.current;
    const { context, sent } = editorContext(editor);
    if (!socket || !socket.send(content, context)) {
      console.error('Planning: message not sent (not connected or no auth token)');
      return;
    }
    sentSelectionRef.current = sent;
    setMessages((old) => [...old, { id: `local-${Date.now()}`, role: 'user', content }]);
    setWaiting(true);
    if (text === input) setInput('');
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send(input);
    }
  };

  const bodyClass = ['planning-body', docOpen ? 'has-doc' : '', narrow ? 'is-narrow' : '']
    .filter(Boolean)
    .join(' ');

  return (
    <div className="planning-page">
      <header className="planning-header">
        <button
          type="button"
          className="icon-button"
          aria-label="Back to group dashboard"
          title="Back to group dashboard"
          onClick={() => navigate(`/groups/${routeId}`)}
        >
          <ArrowLeftIcon />
        </button>
        <div className="planning-title">
          <h1 className="page-title">Campaign Planning</h1>
          <p className="muted planning-group-name">{group.name}</p>
        </div>
        <div className="planning-header-actions">
          <span className={connected ? 'planning-status is-connected' : 'planning-status'} role="status">
            <span className="planning-status-dot" aria-hidden="true" />
            {connected ? 'Connected' : 'Connecting...'}
          </span>
          <button
            type="button"
            className="button button-secondary"
            onClick={() => send(PLANNING_SUGGESTIONS_MESSAGE)}
            disabled={waiting || !connected}
          >
            <SparkIcon />
            SUGGESTIONS
          </button>
          {docOpen ? null : (
            <button type="button" className="button button-primary" onClick={() => setDocOpen(true)}>
              <DocIcon />
              OPEN DOC
            </button>
          )}
        </div>
      </header>

      <div className={bodyClass}>
        <section className="planning-chat" aria-label="Planning chat">
          <div className="planning-messages" ref={listRef}>
            {messages.length === 0 && !waiting ? (
              <p className="muted planning-empty">
                Ask for ideas about the next session, or press SUGGESTIONS. Ask to write into the document and
                the AI edits it directly.
              </p>
            ) : null}
            {messages.map((m) => (
              <div key={m.id} className={`planning-message is-${m.role}`}>
                {m.role === 'assistant' ? <ReactMarkdown>{m.content}</ReactMarkdown> : <p>{m.content}</p>}
              </div>
            ))}
            {waiting ? (
              <div className="planning-message is-assistant planning-waiting" role="status">
                Planning your next move...
              </div>
            ) : null}
          </div>
          <form
            className="planning-input"
            onSubmit={(event) => {
              event.preventDefault();
              send(input);
            }}
          >
            <label htmlFor={inputId} className="visually-hidden">
              Planning message
            </label>
            <textarea
              id={inputId}
              className="text-input"
              rows={3}
              value={input}
              placeholder="Ask about your campaign or ask to edit the document..."
              onChange={(event) => setInput(event.target.value)}
              onKeyDown={onKeyDown}
            />
            <button
              type="submit"
              className="button button-primary"
              disabled={waiting || !input.trim()}
              aria-label="Send"
            >
              <SendIcon />
              Send
            </button>
          </form>
        </section>

        <section className="planning-doc" aria-label="Planning document" hidden={!docOpen}>
          <div className="planning-doc-header">
            <h2 className="card-title">Planning Document</h2>
            <button
              type="button"
              className="icon-button"
              aria-label="Close document"
              title="Close document"
              onClick={() => setDocOpen(false)}
            >
              <CloseIcon />
            </button>
          </div>
          {editor ? <Toolbar editor={editor} /> : null}
          <EditorContent editor={editor} className="planning-editor" />
        </section>
      </div>
    </div>
  );
}

export function PlanningPage() {
  const { groupId } = useParams();
  const groups = useQuery({ queryKey: queryKeys.groups, queryFn: listGroups, ...cacheTimes.groupList });
  const group = findGroup(groups.data, groupId);
  const missing = !groups.isPending && !group;
  useEffect(() => {
    if (missing) console.error('Planning: unknown group', groupId);
  }, [missing, groupId]);

  if (groups.isPending) {
    return (
      <div className="content-center">
        <Spinner label="Loading group..." />
      </div>
    );
  }
  if (!group) return <GroupNotFound />;
  // Keyed by group: another group starts with its own chat, socket and document.
  return <PlanningWorkspace key={group.id} group={group} />;
}
