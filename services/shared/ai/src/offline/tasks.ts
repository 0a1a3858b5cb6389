/**
 * The offline fallback's work as plain data in, text out: what the worker threads run (and the
 * main thread, when AI_OFFLINE_THREADS is 0). Indexing a 4-hour transcript takes a second of
 * CPU, kept off the thread that serves requests and live sockets.
 */
import type {
  AnswerInput,
  CampaignSummaryInput,
  CharacterRecapInput,
  CodexExtractInput,
  PlanInput,
  PreviouslyInput,
  SessionSummaryInput,
} from '../engine.ts';
import { answerText } from './answer.ts';
import { campaignDigest } from './campaign.ts';
import { extractCodexOffline } from './codex.ts';
import { sessionDigest } from './digest.ts';
import { planText } from './plan.ts';
import { characterRecapText, previouslyText } from './story.ts';

export type OfflineTask =
  | { kind: 'session'; input: SessionSummaryInput }
  | { kind: 'campaign'; input: CampaignSummaryInput }
  | { kind: 'answer'; input: AnswerInput }
  | { kind: 'plan'; input: PlanInput }
  | { kind: 'codex'; input: CodexExtractInput }
  | { kind: 'character-recap'; input: CharacterRecapInput }
  | { kind: 'previously'; input: PreviouslyInput };

export function runOfflineTask(task: OfflineTask): string {
  switch (task.kind) {
    case 'session':
      return sessionDigest(task.input);
    case 'campaign':
      return campaignDigest(task.input);
    case 'answer':
      return answerText(task.input);
    case 'plan':
      return planText(task.input);
    // Findings cross the worker boundary as JSON text, like every other task's answer.
    case 'codex':
      return JSON.stringify(extractCodexOffline(task.input));
    case 'character-recap':
      return characterRecapText(task.input);
    case 'previously':
      return previouslyText(task.input);
  }
}
