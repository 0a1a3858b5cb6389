import type { CodexFinding, KnownEntry } from '@chronicler/contracts';
import type { PassagesResult } from '@chronicler/contracts';
import type { Bus, Coordination, Logger } from '@chronicler/kit';

/**
 * What the summary, chat and planning services ask of an AI, whoever answers: an
 * OpenAI-compatible model (OPENAI_API_KEY / OPENAI_BASE_URL), or the built-in offline engine
 * when no model is configured. Services depend on this interface only; `createAiEngine`
 * picks the implementation from configuration.
 *
 * Every method takes the request's context so the engine can apply per-user rate limits and
 * write one durable AI usage record per model request (the offline engine records its
 * requests too, with model 'offline' and zero cost, so usage counts stay true).
 */

/** A chat turn as the specification names it (role user, assistant or system). */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The kinds of AI request, as recorded in the usage ledger's request_type. */
export type AiRequestType =
  'session_summary' | 'campaign_summary' | 'chat' | 'planning' | 'codex' | 'character_recap' | 'previously';

export interface AiRequestContext {
  /** The user the request is made for (rate limits and usage records are per user). */
  userId: string;
  type: AiRequestType;
  /** The session the request is about (a session's recap or chat): its cost is shown on its page. */
  transcriptId?: string;
  /** Aborts the request (a socket closed, the service is stopping). */
  signal?: AbortSignal;
  /**
   * Made by the system, not asked for by the user (a bulk import's automatic summaries). The
   * offline engine costs nothing and does not count such requests against the per-user limit
   * meant for paid models; a model engine still does, and the caller waits and retries.
   */
  automatic?: boolean;
}

/** A session as the campaign summary and planning see it. */
export interface SessionDigest {
  /** The session's id: the campaign recap links each session to its viewer. */
  id?: string;
  name: string;
  /** ISO date-time of the session. */
  date: string;
  summary: string;
}

/** What the planning editor sends with each message, so a reply can target the selection. */
export interface EditorContext {
  content: string;
  selection: { start: number; end: number } | null;
  selectedText: string;
}

/** Which character a speaker tag plays (players speak, stories and questions name characters). */
export interface SpeakerCharacter {
  speaker: string;
  character: string;
}

/**
 * What a session's recap knows of its campaign (a model is told it within the context budget):
 * the names it already knows (the party, people and places met, the codex's entries), the
 * threads still open, and the previous session's recap.
 */
export interface CampaignContext {
  name: string;
  knownNames: string[];
  openThreads: string[];
  previous?: { name: string; date: string; recap: string };
}

export interface SessionSummaryInput {
  /** The session's id: the recap's time links point into its viewer. */
  id?: string;
  name: string;
  transcript: string;
  /** The campaign's speaker-to-character map; the offline engine infers one when absent. */
  characters?: SpeakerCharacter[];
  /** The session's campaign, when it has one. */
  campaign?: CampaignContext;
}

export interface CampaignSummaryInput {
  name: string;
  sessions: SessionDigest[];
  /** The campaign's speaker-to-character map: its player characters are never places. */
  characters?: SpeakerCharacter[];
}

/** What the transcript service found for a question (`svc.transcript.passages`). */
export type FoundPassages = Pick<PassagesResult, 'sessions' | 'passages' | 'whole' | 'speakers'>;

export interface AnswerInput {
  /** The session's name (chat about one session) or the campaign's (a question across it). */
  name: string;
  scope: 'session' | 'campaign';
  /** The passages that best match the question, best first; one whole session when `whole`. */
  found: FoundPassages;
  history: ChatMessage[];
  question: string;
  temperature?: number;
  /** The campaign's speaker-to-character map. */
  characters?: SpeakerCharacter[];
}

/** How much of the sessions an answer can use: what to ask the transcript service for. */
export interface RetrievalPlan {
  /** Passages at most. */
  limit: number;
  /** Characters of passage text at most. */
  maxChars: number;
  /** A single session of no more characters is read whole (a model that can take it all). */
  wholeWithin?: number;
}

export interface PlanInput {
  groupName: string;
  sessions: SessionDigest[];
  campaignSummary: string;
  history: ChatMessage[];
  message: string;
  editor: EditorContext | null;
  /** The campaign's speaker-to-character map: its player characters are never places. */
  characters?: SpeakerCharacter[];
}

export interface CodexExtractInput {
  /** The session's id (its mentions are of this session). */
  id?: string;
  name: string;
  transcript: string;
  /** The campaign's Who Is Who map (links and suggestions); the party is never listed as met. */
  characters?: SpeakerCharacter[];
  /** The codex so far, so that names are recognised again and the game master's kinds kept. */
  known?: KnownEntry[];
}

/** A session as a character's story is told from it: its text, and who plays the character. */
export interface StorySession {
  id: string;
  name: string;
  /** ISO date-time of the session. */
  date: string;
  transcript: string;
}

/** An entry of the codex as a story may name it (for players: theirs only). */
export interface StoryEntry {
  kind: string;
  name: string;
  aliases: string[];
  description: string;
}

export interface CharacterRecapInput {
  campaign: string;
  character: string;
  /** The speaker who plays the character: what they did not witness is left out. */
  player: string;
  /** The campaign's sessions, oldest first. */
  sessions: StorySession[];
  entries: StoryEntry[];
  /** Entries the audience may not read: a line naming one is left out. */
  secrets: StoryEntry[];
  characters?: SpeakerCharacter[];
}

export interface PreviouslyInput {
  campaign: string;
  /** The latest sessions with their summaries, oldest first (the last is the one before the next). */
  sessions: SessionDigest[];
  /** The last session's text, for the offline engine when it has no summary. */
  lastTranscript: string;
  /** Open threads and the entries the last session named. */
  threads: StoryEntry[];
  entries: StoryEntry[];
  secrets: StoryEntry[];
  characters?: SpeakerCharacter[];
}

export interface AiEngine {
  /** 'openai' for any OpenAI-compatible server, 'offline' for the built-in engine. */
  readonly kind: 'openai' | 'offline';
  /** The model id recorded with each request ('offline' for the built-in engine). */
  readonly model: string;

  /**
   * A summary of one session's transcript (up to 500,000 characters: in one pass when it
   * fits the model's context, else map-reduce over chunks). Plain text or light markdown.
   */
  summarizeSession(ctx: AiRequestContext, input: SessionSummaryInput): Promise<string>;

  /** A campaign summary built from its sessions' summaries, oldest first. */
  summarizeCampaign(ctx: AiRequestContext, input: CampaignSummaryInput): Promise<string>;

  /**
   * What to read for a question: the offline engine quotes a few passages; a model reads as
   * much as its context holds (a small session whole), with room for the instructions, the
   * conversation and the question.
   */
  retrievalPlan(input: {
    question: string;
    history: ChatMessage[];
    scope: AnswerInput['scope'];
  }): RetrievalPlan;

  /**
   * An answer about one session or a whole campaign from the passages the transcript service
   * found (never whole transcripts over the bus), citing [HH:MM:SS] times (in a campaign with
   * the session: [S2 HH:MM:SS]). `temperature` defaults to 0.7.
   */
  answer(ctx: AiRequestContext, input: AnswerInput): Promise<string>;

  /**
   * A planning reply for a campaign. When the request asks to change the document, the
   * reply is a JSON object `{"actionHint": "replaceSelection"|"insertAtCursor"|"append",
   * "aiContent": "..."}` and nothing else (the client applies it to the document instead of
   * showing it); otherwise plain text or markdown.
   */
  plan(ctx: AiRequestContext, input: PlanInput): Promise<string>;

  /**
   * What one session establishes for the campaign codex: people met, places, items, factions
   * and open threads, with the lines that name them. Within the model's context (chunked when
   * the session does not fit), given the codex so far.
   */
  extractCodex(ctx: AiRequestContext, input: CodexExtractInput): Promise<CodexFinding[]>;

  /** One character's story across the campaign, from what their player witnessed, with links. */
  characterRecap(ctx: AiRequestContext, input: CharacterRecapInput): Promise<string>;

  /** "Previously on": what the next session starts from. */
  previously(ctx: AiRequestContext, input: PreviouslyInput): Promise<string>;
}

/** Thrown when a user has made too many AI requests in the current window. */
export class AiRateLimitedError extends Error {
  override readonly name = 'AiRateLimitedError';
  constructor(readonly retryAfterMs: number) {
    super('Too many AI requests. Please wait a moment and try again.');
  }
}

/** Thrown when the model could not be reached or refused for good (after retries). */
export class AiUnavailableError extends Error {
  override readonly name = 'AiUnavailableError';
}

/** What an engine needs from its service: usage records go on the bus, rate limits in coord. */
export interface AiDeps {
  bus: Bus;
  coord: Coordination;
  logger: Logger;
}
