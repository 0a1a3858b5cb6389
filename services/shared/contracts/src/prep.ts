import { Type, type Static } from '@sinclair/typebox';
import { rpc } from './rpc.ts';

/**
 * Prep that ticks itself off (#49): what the game master prepares for the next session (beats,
 * secrets, clues, NPCs) as a checklist of a group. While a live session of the group runs,
 * the planning service ticks each item that comes up, with the moment; after it, the items
 * that did not come up are carried into the next session's plan.
 */

/**
 * The planning AI's checklist action: a planning reply that is the JSON object
 * `{"actionHint": "addPrepItems", "items": ["...", ...]}` adds those items to the group's prep
 * (the planning service applies it through the prep store, so they tick live like the game
 * master's; the stored reply lists the items it added). The web app shows it as a checklist
 * update instead of the JSON.
 */
export const ADD_PREP_ITEMS = 'addPrepItems';

/** The items a planning reply adds to the checklist, or null when it is no checklist action. */
export function parsePrepAction(reply: string): string[] | null {
  const trimmed = reply.trim();
  const body = (/^```[a-zA-Z]*\s*\n?([\s\S]*?)\n?\s*```$/.exec(trimmed)?.[1] ?? trimmed).trim();
  if (!body.startsWith('{')) return null;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return null;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return null;
  const { actionHint, items } = value as Record<string, unknown>;
  if (actionHint !== ADD_PREP_ITEMS || !Array.isArray(items)) return null;
  return items.filter((i): i is string => typeof i === 'string' && i.trim() !== '');
}

/** Longest prep item text, in characters. */
export const PREP_TEXT_MAX = 300;
/** Items a group's plan may hold (open and closed together). */
export const PREP_ITEMS_MAX = 500;
/** The socket.io event (on a live session's room) that brings the items a session just ticked. */
export const PREP_UPDATE_EVENT = 'prep_update';

/** Where an item came up: the session, the time in it, who said it and what. */
export const PrepMomentSchema = Type.Object({
  transcript_id: Type.String(),
  /** Seconds from the start of the session. */
  seconds: Type.Number({ minimum: 0 }),
  /** ISO time of the line. */
  timestamp: Type.String(),
  speaker: Type.String(),
  /** The line that completed the match (cut to 300 characters). */
  quote: Type.String(),
});
export type PrepMoment = Static<typeof PrepMomentSchema>;

/** One prepared item with its state. */
export const PrepItemSchema = Type.Object({
  id: Type.String(),
  text: Type.String(),
  done: Type.Boolean(),
  /** Who ticked it: the transcript (it came up) or the game master; null while open. */
  ticked_by: Type.Union([Type.Literal('transcript'), Type.Literal('user'), Type.Null()]),
  /** Where it came up; null unless the transcript ticked it. */
  moment: Type.Union([PrepMomentSchema, Type.Null()]),
  /** The session whose plan it was closed with (it came up there); null: in the next session's plan. */
  closed_in: Type.Union([Type.String(), Type.Null()]),
  /** The sessions whose plan it was in without coming up, oldest first: it was carried forward from each. */
  carried_from: Type.Array(Type.String()),
  created_at: Type.String(),
});
export type PrepItem = Static<typeof PrepItemSchema>;

/** GET /api/groups/{id}/prep: the group's items, the next plan's first, in the order written. */
export const GroupPrepSchema = Type.Object({
  group_id: Type.String(),
  items: Type.Array(PrepItemSchema),
});
export type GroupPrep = Static<typeof GroupPrepSchema>;

/** POST /api/groups/{id}/prep. Text limits are checked by the service, in its words. */
export const CreatePrepItemBodySchema = Type.Object({ text: Type.String() }, { additionalProperties: false });
/** PATCH /api/groups/{id}/prep/{itemId}: a new text, a tick or an untick. */
export const UpdatePrepItemBodySchema = Type.Object(
  { text: Type.Optional(Type.String()), done: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
/** POST /api/groups/{id}/prep/carry: closes a session's plan, carrying what did not come up. */
export const CarryPrepBodySchema = Type.Object(
  { transcript_id: Type.String({ minLength: 1, maxLength: 100 }) },
  { additionalProperties: false },
);
export const PrepItemParamsSchema = Type.Object({ id: Type.String(), itemId: Type.String() });

/** What a live session's room receives when items come up: the items as now stored. */
export interface PrepUpdate {
  group_id: string;
  transcript_id: string;
  items: PrepItem[];
}

const Owned = { owner_id: Type.String({ minLength: 1 }), group_id: Type.String({ minLength: 1 }) };

export const prepListRpc = rpc('planning', 'prep-list', Type.Object(Owned), GroupPrepSchema);
export const prepCreateRpc = rpc(
  'planning',
  'prep-create',
  Type.Object({ ...Owned, text: Type.String() }),
  PrepItemSchema,
);
export const prepUpdateRpc = rpc(
  'planning',
  'prep-update',
  Type.Object({
    ...Owned,
    item_id: Type.String(),
    text: Type.Optional(Type.String()),
    done: Type.Optional(Type.Boolean()),
  }),
  PrepItemSchema,
);
export const prepDeleteRpc = rpc(
  'planning',
  'prep-delete',
  Type.Object({ ...Owned, item_id: Type.String() }),
  Type.Object({ ok: Type.Literal(true) }),
);
export const prepCarryRpc = rpc(
  'planning',
  'prep-carry',
  Type.Object({ ...Owned, transcript_id: Type.String() }),
  GroupPrepSchema,
);

// --- Matching: an item comes up when a line (with the one before it) says enough of its words.

const STOP = new Set(
  (
    'the a an and or but of to in on at for with from by as is are was were be been being it its ' +
    'this that these those they them their there here he she his her him we our you your i me my ' +
    'will would should could can may might must shall do does did not no yes so if then than ' +
    'into onto about over under after before when while who whom which what where why how all any ' +
    'some more most other such only own same too very just also up down out off again once ' +
    'has have had having let lets get gets got make makes made one two'
  ).split(' '),
);

/** A word as matching compares it: lower case, a possessive or plural 's' and an 'ing'/'ed' taken off. */
function stem(word: string): string {
  let w = word.toLowerCase().replace(/'s$/, '').replace(/'/g, '');
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
  return w;
}

const WORD = /[\p{L}\p{N}][\p{L}\p{N}']*/gu;

/** The words of a text that carry meaning, stemmed. */
export function prepWords(text: string): string[] {
  return (text.match(WORD) ?? [])
    .filter((w) => !STOP.has(w.toLowerCase()) && (w.length >= 3 || /\d/.test(w)))
    .map(stem);
}

/**
 * Whether `heard` (a line and the one before it) says the item: every name the item holds
 * (a capitalised word after its first, or one of the campaign's codex names) and, of its other
 * words, all when it has at most two, else at least 60 %.
 */
export function prepMatches(item: string, heard: string, names: readonly string[] = []): boolean {
  const words = [...new Set(prepWords(item))];
  if (words.length === 0) return false;
  const said = new Set(prepWords(heard));
  const raw = item.match(WORD) ?? [];
  const required = new Set<string>();
  raw.forEach((w, i) => {
    if (i > 0 && /^\p{Lu}/u.test(w) && !STOP.has(w.toLowerCase())) required.add(stem(w));
  });
  const itemWords = ` ${raw.join(' ').toLowerCase()} `;
  for (const name of names) {
    // A name the item holds as whole words ('Ana' is not in 'bananas').
    const nameWords = (name.match(WORD) ?? []).join(' ').toLowerCase();
    if (nameWords && itemWords.includes(` ${nameWords} `)) for (const w of prepWords(name)) required.add(w);
  }
  for (const r of required) if (!said.has(r)) return false;
  const hits = words.filter((w) => said.has(w)).length;
  const needed = words.length <= 2 ? words.length : Math.ceil(words.length * 0.6);
  return hits >= needed;
}
