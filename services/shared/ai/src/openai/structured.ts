import type { Static, TSchema } from '@sinclair/typebox';
import type { AiRequestContext, ChatMessage } from '../engine.ts';
import { parseStructured, type StructuredShape } from '../recap/schema.ts';
import { AiSchemaError, coerceToSchema } from './schema-fallback.ts';
import type { TokenCounter } from './tokens.ts';

/** What the recap steps need of the engine: one recorded, rate-limited model call, and sizes. */
export interface ModelPort {
  readonly model: string;
  readonly counter: TokenCounter;
  /** Tokens the server runs the model with. */
  readonly contextTokens: number;
  /** Tokens kept for an answer (sent as the request's output limit). */
  readonly answerTokens: number;
  complete(
    ctx: AiRequestContext,
    messages: ChatMessage[],
    opts: { shape?: StructuredShape<TSchema>; maxTokens?: number },
  ): Promise<string>;
  /** Logs what a recap step had to work around (an answer coerced to its schema). */
  warn(fields: Record<string, unknown>, message: string): void;
}

/** The schema as the instructions show it: servers without json_schema support still see it. */
function schemaText(shape: StructuredShape<TSchema>): string {
  return `Answer with one JSON object and nothing else, matching this JSON schema ("${shape.name}"):\n${JSON.stringify(shape.schema)}`;
}

/** Tokens of a structured request's fixed part: its instructions with the schema, twice over (response_format counts on some servers). */
export function structuredOverhead(
  port: ModelPort,
  instructions: string,
  shape: StructuredShape<TSchema>,
): number {
  return port.counter.count(instructions) + 2 * port.counter.count(schemaText(shape)) + 16;
}

const REPAIR_INSTRUCTIONS =
  'The JSON below was meant to match the schema that follows, but does not. Return it corrected: ' +
  'the same content, reshaped to the schema, as one JSON object and nothing else.';

/**
 * A structured answer: asked with `response_format` json_schema (the engine falls back to
 * json_object for servers without it), parsed and validated; an invalid answer gets one repair
 * request (the answer and what is wrong with it, not the transcript again); still invalid, it is
 * coerced to the schema where that is safe; failing that, AiSchemaError (the engine answers with
 * the offline digest and a notice).
 */
export async function completeStructured<T extends TSchema>(
  port: ModelPort,
  ctx: AiRequestContext,
  instructions: string,
  content: string,
  shape: StructuredShape<T>,
): Promise<Static<T>> {
  const messages: ChatMessage[] = [
    { role: 'system', content: `${instructions}\n\n${schemaText(shape)}` },
    { role: 'user', content },
  ];
  const first = await port.complete(ctx, messages, { shape, maxTokens: port.answerTokens });
  const parsed = parseStructured(shape, first);
  if (parsed.ok) return parsed.value;
  // The bad answer is at most answerTokens long; the repair request stays within the context.
  const bad = clipTokens(port.counter, first, port.answerTokens);
  const repaired = await port.complete(
    ctx,
    [
      { role: 'system', content: `${REPAIR_INSTRUCTIONS}\n\n${schemaText(shape)}` },
      { role: 'user', content: `What is wrong: ${parsed.errors}\n\nThe JSON:\n${bad}` },
    ],
    { shape, maxTokens: port.answerTokens },
  );
  const again = parseStructured(shape, repaired);
  if (again.ok) return again.value;
  // Reshaped where nothing said is lost (a missing list, a lone item, a number as text).
  const coerced = coerceToSchema(shape.schema, [repaired, first]);
  if (coerced !== null) {
    port.warn(
      { shape: shape.name, reason: again.errors },
      `the AI model's ${shape.name} missed its schema after a repair; coerced to it`,
    );
    return coerced as Static<T>;
  }
  throw new AiSchemaError(shape.name, again.errors, port.model);
}

/** The start of `text` within `tokens`. */
export function clipTokens(counter: TokenCounter, text: string, tokens: number): string {
  if (counter.count(text) <= tokens) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (counter.count(text.slice(0, mid)) <= tokens) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo);
}
