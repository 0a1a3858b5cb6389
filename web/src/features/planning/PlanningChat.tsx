import { useEffect, useId, useRef, type KeyboardEvent } from 'react';
import { isOfflineAiText, withoutOfflineMarker } from '@chronicler/contracts';
import ReactMarkdown from 'react-markdown';
import { OfflineNotice } from '../../components/OfflineNotice.tsx';
import { SendIcon } from '../../components/icons.tsx';
import type { ShownMessage } from './use-planning-chat.ts';

/** The conversation and the message box; Enter sends, Shift+Enter starts a new line. */
export function PlanningChat(props: {
  messages: ShownMessage[];
  waiting: boolean;
  input: string;
  onInputChange: (value: string) => void;
  onSend: (text: string) => void;
}) {
  const { messages, waiting, input, onSend } = props;
  const inputId = useId();
  const listRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    listRef.current?.scrollTo({ top: listRef.current.scrollHeight });
  }, [messages, waiting]);

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      onSend(input);
    }
  };

  return (
    <section className="planning-chat" aria-label="Planning chat">
      <div className="planning-messages" ref={listRef}>
        {messages.length === 0 && !waiting ? (
          <p className="muted planning-empty">
            Ask for ideas about the next session, or press SUGGESTIONS. Ask to write into the document and the
            AI edits it directly.
          </p>
        ) : null}
        {messages.some((m) => m.role === 'assistant' && isOfflineAiText(m.content)) ? (
          <OfflineNotice what="answers" />
        ) : null}
        {messages.map((m) => (
          <div key={m.id} className={`planning-message is-${m.role}`}>
            {m.role === 'assistant' ? (
              <ReactMarkdown skipHtml>{withoutOfflineMarker(m.content)}</ReactMarkdown>
            ) : (
              <p>{m.content}</p>
            )}
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
          onSend(input);
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
          onChange={(event) => props.onInputChange(event.target.value)}
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
  );
}
