// The chat socket: /api/ws/chat?token=&transcript_id=. The client sends
// {type: 'chat_message', content}; leaving closes with 1000 'Client navigated away'.
import { CHAT_CLIENT_CLOSE_REASON, type ChatMessage } from '@chronicler/contracts';
import { openFrameSocket, type FrameSocketHandlers } from './frame-socket.ts';

export type ChatSocketHandlers = FrameSocketHandlers<ChatMessage>;

export interface ChatSocket {
  /** Sends a question; false when the socket is not open (nothing was sent). */
  send(content: string): boolean;
  close(): void;
}

/** Without a stored token the browser's access-token cookie signs the handshake in. */
export function openChatSocket(transcriptId: string, handlers: ChatSocketHandlers): ChatSocket {
  const socket = openFrameSocket(
    {
      label: 'Chat',
      path: '/ws/chat',
      params: { transcript_id: transcriptId },
      tokenRequired: false,
      closeReason: CHAT_CLIENT_CLOSE_REASON,
    },
    handlers,
  );
  return {
    send: (content) => socket.send({ type: 'chat_message', content }),
    close: () => socket.close(),
  };
}
