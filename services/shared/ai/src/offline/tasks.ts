/**
 * The offline engine's work as plain data in, text out: what the worker threads run (and the
 * main thread, when AI_OFFLINE_THREADS is 0). A 4-hour transcript takes the engine from half a
 * second (a summary) to seconds (an answer) of CPU: on the main thread that would stall every
 * request and live socket of the process meanwhile.
 */
import type { AnswerInput, CampaignSummaryInput, PlanInput, SessionSummaryInput } from '../engine.ts';
import { answerText } from './answer.ts';
import { planText } from './plan.ts';
import { summarizeCampaignText, summarizeSessionText } from './summarize.ts';

export type OfflineTask =
  | { kind: 'session'; input: SessionSummaryInput }
  | { kind: 'campaign'; input: CampaignSummaryInput }
  | { kind: 'answer'; input: AnswerInput }
  | { kind: 'plan'; input: PlanInput };

export function runOfflineTask(task: OfflineTask): string {
  switch (task.kind) {
    case 'session':
      return summarizeSessionText(task.input.name, task.input.transcript, {
        characters: task.input.characters,
      });
    case 'campaign':
      return summarizeCampaignText(task.input.name, task.input.sessions, task.input.characters);
    case 'answer':
      return answerText(task.input);
    case 'plan':
      return planText(task.input);
  }
}
