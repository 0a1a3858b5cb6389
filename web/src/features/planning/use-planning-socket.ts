import type { PlanningEditorContext } from '@chronicler/contracts';
import { useCallback, useEffect, useRef, useState } from 'react';
import {
  openPlanningSocket,
  type PlanningSocket,
  type PlanningSocketHandlers,
} from '../../realtime/planning-socket.ts';

/** The connection state shown in the header is polled every second. */
const CONNECTION_POLL_MS = 1000;

export interface PlanningConnection {
  connected: boolean;
  /** Sends a message with the editor's context; false when it could not be sent. */
  send: (content: string, context: PlanningEditorContext) => boolean;
}

/**
 * The group's planning socket, open while the component is mounted. The handlers are read
 * at each event, so they may change between renders without reopening the socket.
 */
export function usePlanningSocket(groupId: string, handlers: PlanningSocketHandlers): PlanningConnection {
  const [connected, setConnected] = useState(false);
  const socketRef = useRef<PlanningSocket | null>(null);
  const handlersRef = useRef(handlers);
  handlersRef.current = handlers;

  useEffect(() => {
    const socket = openPlanningSocket(groupId, {
      onHistory: (history) => handlersRef.current.onHistory(history),
      onMessage: (message) => handlersRef.current.onMessage(message),
      onError: (error) => handlersRef.current.onError(error),
    });
    socketRef.current = socket;
    const poll = window.setInterval(() => setConnected(socket.isConnected()), CONNECTION_POLL_MS);
    return () => {
      window.clearInterval(poll);
      socket.close();
      socketRef.current = null;
    };
  }, [groupId]);

  const send = useCallback((content: string, context: PlanningEditorContext) => {
    const socket = socketRef.current;
    return socket !== null && socket.send(content, context);
  }, []);

  return { connected, send };
}
