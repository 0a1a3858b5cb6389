import type { SocketTicketResponse, VerifySessionResult } from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';
import { randomBytes } from 'node:crypto';
import { SOCKET_TICKET_MAX_AGE_MS } from '../db/store.ts';
import { secretHash, toAuthUser, type AuthDeps } from '../sessions.ts';

/**
 * svc.auth.socket-ticket: a one-time code for a browser WebSocket, which can carry neither
 * a header nor (by our rule) a token in its URL. The code is useless after its first use or
 * its minute, so the URL it travels in (and any log of it) leaks nothing lasting.
 */
export const socketTicket =
  ({ store }: AuthDeps) =>
  async (req: { session_id: string }): Promise<SocketTicketResponse> => {
    if (!(await store.liveSession(req.session_id)))
      throw new ServiceError('unauthorized', 'Authentication required');
    const ticket = randomBytes(24).toString('base64url');
    await store.addSocketTicket(req.session_id, secretHash(ticket));
    return { ticket, expires_in: SOCKET_TICKET_MAX_AGE_MS / 1000 };
  };

/** svc.auth.redeem-socket-ticket: the ticket's session and user, once, while both are live. */
export const redeemSocketTicket =
  ({ store, settings }: AuthDeps) =>
  async (req: { ticket: string }): Promise<VerifySessionResult> => {
    const sessionId = await store.takeSocketTicket(secretHash(req.ticket));
    const live = sessionId ? await store.liveSession(sessionId) : undefined;
    if (!live) return { valid: false };
    const end = new Date(live.session.expires_at);
    return {
      valid: true,
      user: toAuthUser(live.user, settings),
      session_id: live.session.id,
      // A ticket is spent: nothing may be cached under it.
      valid_until: Date.now(),
      session_expires_at: end.toISOString(),
    };
  };
