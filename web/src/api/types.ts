// Shapes of the gateway's answers used by the client foundation.

export interface AuthUser {
  id: string;
  username: string;
  /** A full image URL, or a Discord avatar hash (combined with discord_id), or null. */
  avatar: string | null;
  discord_id: string | null;
  is_admin: boolean;
}

/** GET /auth/user, POST /auth/google/credential, POST /auth/local. */
export interface AuthCheckResponse {
  authenticated: boolean;
  user?: AuthUser;
  token?: string;
}

/** An answer that really signs someone in. */
export type AuthenticatedResponse = AuthCheckResponse & { authenticated: true; user: AuthUser };

export function isAuthenticatedResponse(
  value: AuthCheckResponse | null | undefined,
): value is AuthenticatedResponse {
  return Boolean(value && value.authenticated === true && value.user);
}

export interface AuthProviders {
  discord: boolean;
  google: boolean;
  google_client_id: string | null;
  local: boolean;
}

export interface LoginUrlResponse {
  login_url: string;
}

export interface DebugCookiesResponse {
  access_token_present: boolean;
}

export interface AppConfig {
  bot_invite_url: string | null;
  community_url: string | null;
  /** The speech-to-text provider in use; null: audio upload is not available. */
  speech_provider: string | null;
}

/** GET /groups items (POST /groups answers one). */
export interface GroupSummaryItem {
  id: string;
  group_id?: string;
  name: string;
  session_ids?: string[];
  summary?: string | null;
  llm_summary?: string | null;
  summary_generated_at?: string | null;
}

/** GET /transcripts items, newest first. */
export interface TranscriptSummaryItem {
  id: string;
  name: string;
  session_timestamp?: string | null;
  created_at?: string | null;
  last_activity?: string | null;
  status?: string | null;
  /** '' or absent when the session belongs to no group. */
  group_id?: string | null;
  summary?: string | null;
  preview?: string | null;
  /** 'live' (the bot), 'manual' (typed or pasted) or 'audio' (an uploaded recording). */
  source?: 'live' | 'manual' | 'audio';
  /** Where an uploaded recording's transcription stands; 'none' for other sessions. */
  transcription_status?: TranscriptionStatus;
  /** Why the transcription failed ('' otherwise). */
  transcription_error?: string;
  /** Length of the uploaded recording in seconds (0 when none). */
  audio_seconds?: number;
  /** Where the session's AI summary stands. */
  summary_status?: SummaryStatus;
}

export type SummaryStatus = 'none' | 'generating' | 'done' | 'failed';

/** POST /groups/{id}/check-summary. */
export interface GroupSummaryCheck {
  group_id: string;
  summary: string;
  llm_summary: string;
  needs_update: boolean;
  message: string;
}

export type TranscriptionStatus = 'none' | 'queued' | 'processing' | 'completed' | 'failed';

/** GET /transcripts/{id}: a session with its transcript text. */
export interface TranscriptDetail extends TranscriptSummaryItem {
  content: string;
}

/** GET /transcripts/active items. */
export interface ActiveSessionItem {
  session_id: string;
  transcript_id: string;
  start_time?: string | null;
  created_at?: string | null;
  last_activity?: string | null;
  is_active: boolean;
  final_results: number;
  interim_results: number;
  connected_clients: number;
}

/** GET and PUT /transcripts/{id}/notes. */
export interface SessionNotes {
  content: string;
}

/** GET /users/stats. */
export interface UserStats {
  transcription_hours?: number | null;
  ai_requests_total?: number | null;
}

/** DELETE answers. */
export interface OkResponse {
  ok: boolean;
}
