/**
 * The offline fallback's work as plain data in, text out: what the worker threads run (and the
 * main thread, when AI_OFFLINE_THREADS is 0). Indexing a 4-hour transcript takes a second of
 * CPU, kept off the thread that serves requests and live sockets.
 */
import type { AnswerInput, CampaignSummaryInput, PlanInput, SessionSummaryInput } from '../engine.ts';
import { answerText } from './answer.ts';
import { campaignDigest } from './campaign.ts';
import { sessionDigest } from './digest.ts';
import { planText } from './plan.ts';

export type OfflineTask =
  | { kind: 'session'; input: SessionSummaryInput }
  | { kind: 'campaign'; input: CampaignSummaryInput }
  | { kind: 'answer'; input: AnswerInput }
  | { kind: 'plan'; input: PlanInput };

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
  }
}
