import {
  EMERGENCY_ADVENTURE_MESSAGE,
  isOfflineAiText,
  withoutOfflineMarker,
  type ChatMessage,
} from '@chronicler/contracts';
import { useCallback, useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import toast from 'react-hot-toast';
import ReactMarkdown from 'react-markdown';
import { CloseIcon } from '../../components/icons.tsx';
import { OfflineNotice } from '../../components/OfflineNotice.tsx';
import { openChatSocket, type ChatSocket } from '../../realtime/chat-socket.ts';
import './chat.css';

const SEND_FAILED = 'Error: Failed to get a response. Please try again.';
const EMERGENCY_FAILED = 'Error: Failed to send emergency message. Please try again.';

/** Which question awaits its reply: an emergency request fails with its own message. */
type Pending = 'question' | 'emergency' | null;

function WelcomeGuide() {
  return (
    <div className="chat-welcome">
      <p className="chat-welcome-title">Ask the AI about a session transcript.</p>
      <ul>
        <li>
          Timestamps look like <code>[HH:MM:SS]</code>: the time into the session when a line was spoken.
        </li>
        <li>Speaker tags (a name, or Speaker 1, Speaker 2...) identify the players.</li>
        <li>Lines may be fragments: speech is transcribed as it is spoken.</li>
        <li>Select a transcript first to start chatting about it.</li>
      </ul>
    </div>
  );
}

function MessageBubble({ message }: { message: ChatMessage }) {
  return (
    <li className={`chat-message chat-message-${message.role}`} data-role={message.role}>
      {message.role === 'assistant' ? (
        <div className="chat-markdown">
          <ReactMarkdown skipHtml>{withoutOfflineMarker(message.content)}</ReactMarkdown>
        </div>
      ) : (
        <p className="chat-plain">{message.content}</p>
      )}
    </li>
  );
}

interface ChatPanelProps {
  transcriptId: string | null;
  onClose: () => void;
}

function ChatPanel({ transcriptId, onClose }: ChatPanelProps) {
  const titleId = useId();
  const inputId = useId();
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [historyLoaded, setHistoryLoaded] = useState(false);
  const [draft, setDraft] = useState('');
  const [pending, setPending] = useState<Pending>(null);
  const [connected, setConnected] = useState(false);
  const socketRef = useRef<ChatSocket | null>(null);
  const pendingRef = useRef<Pending>(null);
  const listRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLTextAreaElement>(null);

  // Ends the wait for a reply; a failure shows the message for what was sent.
  const settle = useCallback((failure: boolean) => {
    const was = pendingRef.current;
    pendingRef.current = null;
    setPending(null);
    if (failure && was) {
      // A 'Failed to send message' toast, and a system message in the conversation itself.
      toast.error('Failed to send message');
      setMessages((list) => [
        ...list,
        { role: 'system', content: was === 'emergency' ? EMERGENCY_FAILED : SEND_FAILED },
      ]);
    }
  }, []);

  useEffect(() => {
    if (!transcriptId) return;
    const socket = openChatSocket(transcriptId, {
      onHistory: (history) => {
        setMessages(history);
        setHistoryLoaded(true);
      },
      onMessage: (message) => {
        setMessages((list) => [...list, message]);
        settle(false);
      },
      onError: (error) => {
        // The server's error text is only logged; the question it answered counts as failed.
        console.error('Chat error from the server:', error);
        settle(true);
      },
      onConnectionChange: (open) => {
        setConnected(open);
        // A reply awaited on a socket that closed will never come.
        if (!open) settle(true);
      },
    });
    socketRef.current = socket;
    return () => {
      socketRef.current = null;
      socket.close();
    };
  }, [transcriptId, settle]);

  // The input is disabled while a reply is awaited; once it arrives, typing goes on there.
  useEffect(() => {
    if (!pending && connected) inputRef.current?.focus();
  }, [pending, connected]);

  // The newest message (or the loading dots) stays in view.
  useEffect(() => {
    const list = listRef.current;
    if (list) list.scrollTop = list.scrollHeight;
  }, [messages, pending]);

  const send = (content: string, kind: Exclude<Pending, null>) => {
    const text = content.trim();
    if (!text || !transcriptId || pendingRef.current) return;
    setMessages((list) => [...list, { role: 'user', content: text }]);
    pendingRef.current = kind;
    setPending(kind);
    if (kind === 'question') setDraft('');
    if (!socketRef.current?.send(text)) settle(true);
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    send(draft, 'question');
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    // Enter sends; Shift+Enter is a new line; Enter that finishes an IME composition is neither.
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send(draft, 'question');
    }
  };

  const onPanelKeyDown = (event: KeyboardEvent<HTMLElement>) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      onClose();
    }
  };

  const disabled = !transcriptId || pending !== null;
  const canSend = !disabled && connected && draft.trim() !== '';

  let body;
  if (!transcriptId) {
    body = <WelcomeGuide />;
  } else if (historyLoaded && messages.length === 0 && !pending) {
    body = <p className="chat-empty muted">You can now ask questions about this transcript.</p>;
  } else {
    body = null;
  }

  return (
    <aside
      className="chat-drawer"
      role="dialog"
      aria-modal="false"
      aria-labelledby={titleId}
      onKeyDown={onPanelKeyDown}
    >
      <header className="chat-drawer-header">
        <h2 id={titleId} className="chat-drawer-title">
          Chat
        </h2>
        <div className="chat-drawer-actions">
          <button
            type="button"
            className="button chat-adventure"
            title="Generate Emergency Adventure Content"
            disabled={disabled || !connected}
            onClick={() => send(EMERGENCY_ADVENTURE_MESSAGE, 'emergency')}
          >
            ADVENTURE
          </button>
          <button
            type="button"
            className="icon-button"
            aria-label="Close chat"
            title="Close chat"
            onClick={onClose}
          >
            <CloseIcon />
          </button>
        </div>
      </header>

      <div className="chat-drawer-body" ref={listRef}>
        {body}
        {messages.some((m) => m.role === 'assistant' && isOfflineAiText(m.content)) ? (
          <OfflineNotice what="answers" />
        ) : null}
        {messages.length > 0 ? (
          <ol className="chat-messages" aria-label="Messages" aria-live="polite">
            {messages.map((message, index) => (
              <MessageBubble key={index} message={message} />
            ))}
          </ol>
        ) : null}
        {pending ? (
          <div className="chat-loading" role="status" aria-label="Waiting for a reply">
            <span />
            <span />
            <span />
          </div>
        ) : null}
      </div>

      <form className="chat-compose" onSubmit={submit} noValidate>
        <label className="visually-hidden" htmlFor={inputId}>
          Message
        </label>
        <textarea
          id={inputId}
          ref={inputRef}
          className="text-input chat-input"
          rows={3}
          placeholder={transcriptId ? 'Ask about the transcript...' : 'Select a transcript first...'}
          value={draft}
          disabled={disabled}
          onChange={(event) => setDraft(event.target.value)}
          onKeyDown={onKeyDown}
        />
        <button type="submit" className="button button-primary chat-send" disabled={!canSend}>
          Send
        </button>
      </form>
    </aside>
  );
}

interface ChatDrawerProps {
  transcriptId: string | null;
  open: boolean;
  onClose: () => void;
}

/**
 * The AI chat about one transcript, beside it as a drawer. Keyed by the transcript:
 * another one starts a new conversation view on its own socket.
 */
export function ChatDrawer({ transcriptId, open, onClose }: ChatDrawerProps) {
  if (!open) return null;
  return <ChatPanel key={transcriptId ?? ''} transcriptId={transcriptId} onClose={onClose} />;
}
