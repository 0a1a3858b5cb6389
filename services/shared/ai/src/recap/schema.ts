import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * The shapes a model fills in for a recap, as JSON schemas (sent as `response_format`
 * json_schema, strict: every field required, no others) and validated on the way back.
 */
const strict = { additionalProperties: false } as const;

const MomentSchema = Type.Object(
  {
    time: Type.String({ description: 'When it happened, HH:MM:SS, copied from the transcript' }),
    text: Type.String(),
  },
  strict,
);
const NamedSchema = Type.Object({ name: Type.String(), note: Type.String() }, strict);
const QuoteSchema = Type.Object({ time: Type.String(), speaker: Type.String(), text: Type.String() }, strict);

/** What the map step keeps of one part of a session: its times go on to the recap. */
const ChunkNotesSchema = Type.Object(
  {
    events: Type.Array(MomentSchema),
    people: Type.Array(NamedSchema),
    places: Type.Array(NamedSchema),
    loot: Type.Array(Type.String()),
    threads: Type.Array(Type.String()),
    quotes: Type.Array(QuoteSchema),
  },
  strict,
);
export type ChunkNotes = Static<typeof ChunkNotesSchema>;

/** A session recap: the sections a game master uses. */
const RecapSchema = Type.Object(
  {
    story: Type.Array(Type.String(), { description: 'The story in a few paragraphs, in order' }),
    key_moments: Type.Array(MomentSchema),
    people: Type.Array(NamedSchema, { description: 'Non-player characters met; never the party' }),
    places: Type.Array(NamedSchema),
    loot: Type.Array(Type.String()),
    threads: Type.Array(Type.String(), { description: 'Open threads and hooks for next time' }),
    quotes: Type.Array(QuoteSchema),
  },
  strict,
);
export type Recap = Static<typeof RecapSchema>;

/** A campaign recap, written from the session recaps only. */
const CampaignRecapSchema = Type.Object(
  {
    story: Type.Array(Type.String()),
    people: Type.Array(NamedSchema, { description: 'Non-player characters who matter; never the party' }),
    places: Type.Array(NamedSchema),
    threads: Type.Array(Type.String()),
    sessions: Type.Array(Type.Object({ number: Type.Integer(), line: Type.String() }, strict), {
      description: 'One line per session, by its number in the list given',
    }),
  },
  strict,
);
export type CampaignRecap = Static<typeof CampaignRecapSchema>;

export interface StructuredShape<T extends TSchema> {
  name: string;
  schema: T;
}
export const CHUNK_NOTES = { name: 'session_part_notes', schema: ChunkNotesSchema };
export const RECAP = { name: 'session_recap', schema: RecapSchema };
export const CAMPAIGN_RECAP = { name: 'campaign_recap', schema: CampaignRecapSchema };

/**
 * The JSON object in a model's answer (a code fence around it is tolerated), checked against
 * the schema: the value, or the reasons it is not one.
 */
export function parseStructured<T extends TSchema>(
  shape: StructuredShape<T>,
  raw: string,
): { ok: true; value: Static<T> } | { ok: false; errors: string } {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(raw);
  let parsed: unknown;
  try {
    parsed = JSON.parse((fenced ? fenced[1]! : raw).trim());
  } catch (err) {
    return { ok: false, errors: `not JSON (${err instanceof Error ? err.message : String(err)})` };
  }
  if (Value.Check(shape.schema, parsed)) return { ok: true, value: parsed };
  const errors = [...Value.Errors(shape.schema, parsed)]
    .slice(0, 5)
    .map((e) => `${e.path || '/'}: ${e.message}`)
    .join('; ');
  return { ok: false, errors };
}
