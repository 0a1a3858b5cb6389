// The gateway's answers as the contracts define them: the web client reads the same
// TypeBox schemas the gateway validates with, so a shape is declared once.
import type { AuthCheckResponse, AuthUser, TranscriptListItem } from '@chronicler/contracts';

export type {
  AppConfig,
  AuthCheckResponse,
  AuthProviders,
  AuthUser,
  DebugCookiesResponse,
  Group as GroupSummaryItem,
  GroupSummaryCheck,
  LoginUrlResponse,
  Transcript as TranscriptDetail,
  UserStats,
} from '@chronicler/contracts';

/**
 * A session as the screens use it: a list item (which adds a short preview) or the answer of
 * a read or an update (the whole session, whose content makes a preview unnecessary).
 */
export type TranscriptSummaryItem = Omit<TranscriptListItem, 'preview'> &
  Partial<Pick<TranscriptListItem, 'preview'>>;

/** An answer that really signs someone in. */
export type AuthenticatedResponse = AuthCheckResponse & { authenticated: true; user: AuthUser };

export function isAuthenticatedResponse(
  value: AuthCheckResponse | null | undefined,
): value is AuthenticatedResponse {
  return Boolean(value && value.authenticated === true && value.user);
}

/** GET and PUT /transcripts/{id}/notes. */
export interface SessionNotes {
  content: string;
}

/** DELETE answers. */
export interface OkResponse {
  ok: boolean;
}
