// The planning socket: /api/ws/planning?token=&group_id=. The client sends
// {type: 'chat_message', content, canvasContent, selection, selectedText}.
import type { PlanningEditorContext, PlanningMessage } from '@chronicler/contracts';
import { getStoredToken } from '../features/auth/auth-storage.ts';
import { openFrameSocket, type FrameSocketHandlers } from './frame-socket.ts';

export type PlanningSocketHandlers = FrameSocketHandlers<PlanningMessage>;

export interface PlanningSocket {
  /** Whether the socket is open now (the workspace polls it every second). */
  isConnected(): boolean;
  /** Sends a message with the editor's context; false when nothing was sent. */
  send(content: string, editor: PlanningEditorContext): boolean;
  close(): void;
}

/** Opens the group's planning socket; without a stored token it never connects (and says so). */
export function openPlanningSocket(groupId: string, handlers: PlanningSocketHandlers): PlanningSocket {
  const socket = openFrameSocket(
    { label: 'Planning', path: '/ws/planning', params: { group_id: groupId }, tokenRequired: true },
    handlers,
  );
  return {
    isConnected: () => socket.isConnected(),
    send(content, editor) {
      // A send with no auth token is refused and logged.
      if (!getStoredToken()) {
        console.error('Planning: no auth token, message not sent');
        return false;
      }
      return socket.send({
        type: 'chat_message',
        content,
        canvasContent: editor.content,
        selection: editor.selection,
        selectedText: editor.selectedText,
      });
    },
    close: () => socket.close(),
  };
}
