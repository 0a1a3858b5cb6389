import { ADD_PREP_ITEMS } from '@chronicler/contracts';
import type { ChatMessage } from '../engine.ts';

const ACTION_HINTS = new Set(['replaceSelection', 'insertAtCursor', 'append']);

/** The latest user and assistant turns whose text fits `maxChars`, in order. */
export function recentTurns(history: ChatMessage[], maxChars: number): ChatMessage[] {
  const kept: ChatMessage[] = [];
  let size = 0;
  for (let i = history.length - 1; i >= 0; i--) {
    const m = history[i]!;
    if (m.role === 'system') continue;
    if (size + m.content.length > maxChars) break;
    size += m.content.length;
    kept.unshift({ role: m.role, content: m.content });
  }
  return kept;
}

/** A 400 about response_format: the server has no structured output of the json_schema kind. */
export function refusedSchema(err: unknown): boolean {
  const cause =
    err instanceof Error ? (err.cause as { status?: number; message?: string } | undefined) : undefined;
  return cause?.status === 400 && /response_format|json_schema|schema/i.test(cause.message ?? '');
}

/**
 * The planning reply as the web app applies it: `{"actionHint", "aiContent"}` when the model
 * asked to change the document, `{"actionHint": "addPrepItems", "items"}` (its string items) when
 * it adds to the prep checklist, else its plain-text reply. A model that ignored JSON mode is
 * passed through as text.
 */
export function planningReply(raw: string): string {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(raw);
  const candidate = (fenced ? fenced[1]! : raw).trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(candidate);
  } catch {
    return raw.trim();
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return raw.trim();
  const o = parsed as Record<string, unknown>;
  if (o.actionHint === ADD_PREP_ITEMS && Array.isArray(o.items)) {
    const items = o.items.filter((i): i is string => typeof i === 'string' && i.trim() !== '');
    if (items.length) return JSON.stringify({ actionHint: ADD_PREP_ITEMS, items });
  }
  if (typeof o.aiContent === 'string' && o.aiContent.trim()) {
    const actionHint =
      typeof o.actionHint === 'string' && ACTION_HINTS.has(o.actionHint) ? o.actionHint : 'append';
    return JSON.stringify({ actionHint, aiContent: o.aiContent });
  }
  if (typeof o.reply === 'string' && o.reply.trim()) return o.reply.trim();
  return raw.trim();
}
