import { OFFLINE_AI_MARKER } from '@chronicler/contracts';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AiUnavailableError } from '../engine.ts';

/**
 * A model's structured answer that missed its schema after a repair request and the safe
 * coercions: the recap is answered by the offline digest instead (with a notice), and the
 * reason is logged.
 */
export class AiSchemaError extends AiUnavailableError {
  constructor(
    readonly shape: string,
    readonly reason: string,
    model: string,
  ) {
    super(`The AI model ${model} did not return a valid ${shape} after one repair try (${reason}).`);
  }
}

/** The offline digest with a line that says why the model's recap is not shown. */
export function withSchemaNotice(digest: string, model: string): string {
  const body = digest.trimStart().startsWith(OFFLINE_AI_MARKER)
    ? digest.trimStart().slice(OFFLINE_AI_MARKER.length).trimStart()
    : digest;
  return `${OFFLINE_AI_MARKER}\n> The AI model ${model} answered in a form Chronicler could not read, even after asking it to correct it, so this is the built-in digest of the session's own lines. Generate the summary again to retry.\n\n${body}`;
}

type Json = unknown;
const DROP = Symbol('drop');

/** The first JSON object in a text: the whole text, a fenced block, or the outermost braces. */
function jsonIn(raw: string): Json | undefined {
  const candidates = [raw.trim()];
  const fenced = /```(?:json)?\s*([\s\S]*?)```/.exec(raw);
  if (fenced) candidates.push(fenced[1]!.trim());
  const open = raw.indexOf('{');
  const close = raw.lastIndexOf('}');
  if (open >= 0 && close > open) candidates.push(raw.slice(open, close + 1));
  for (const c of candidates) {
    try {
      return JSON.parse(c) as Json;
    } catch {
      // The next candidate.
    }
  }
  return undefined;
}

/**
 * A value reshaped to `schema` where that loses nothing the answer said: a missing list is
 * empty, a lone item where a list belongs becomes a list of one, a number where text belongs
 * becomes its text (and a numeric text a number), unknown fields are dropped, and a list item
 * that cannot be read is left out. Anything else is refused (DROP).
 */
function coerce(schema: TSchema, value: Json): Json | typeof DROP {
  const s = schema as { type?: string; properties?: Record<string, TSchema>; items?: TSchema };
  switch (s.type) {
    case 'object': {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return DROP;
      const out: Record<string, Json> = {};
      for (const [key, prop] of Object.entries(s.properties ?? {})) {
        const v = (value as Record<string, Json>)[key];
        const isList = (prop as { type?: string }).type === 'array';
        const c = v === undefined || v === null ? (isList ? [] : DROP) : coerce(prop, v);
        if (c === DROP) return DROP;
        out[key] = c;
      }
      return out;
    }
    case 'array': {
      const items = Array.isArray(value) ? value : [value];
      return items.map((i) => coerce(s.items!, i)).filter((i) => i !== DROP);
    }
    case 'string':
      if (typeof value === 'string') return value;
      return typeof value === 'number' || typeof value === 'boolean' ? String(value) : DROP;
    case 'integer':
    case 'number': {
      const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : NaN;
      if (!Number.isFinite(n)) return DROP;
      return s.type === 'integer' ? Math.round(n) : n;
    }
    default:
      return Value.Check(schema, value) ? value : DROP;
  }
}

/** Whether any list of a reshaped answer kept something (an answer that says nothing is no answer). */
function saysSomething(value: Json): boolean {
  return Object.values(value as Record<string, Json>).some((v) => !Array.isArray(v) || v.length > 0);
}

/** The answers, coerced to the schema where that is safe: the first that validates, or null. */
export function coerceToSchema<T extends TSchema>(schema: T, answers: string[]): unknown {
  for (const raw of answers) {
    const parsed = jsonIn(raw);
    if (parsed === undefined) continue;
    const shaped = coerce(schema, parsed);
    if (shaped === DROP || !Value.Check(schema, shaped)) continue;
    if (!saysSomething(shaped) && saysSomething(parsed)) continue;
    return shaped;
  }
  return null;
}
