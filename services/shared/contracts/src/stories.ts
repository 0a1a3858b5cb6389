/**
 * A character's story across a campaign and "previously on" for the next session: written by the
 * summary service (a model, or the offline engine's quoted lines), read by the owner and, through
 * a share link, by a player signed out, who then sees only the codex entries marked for players.
 */
import { Type, type Static } from '@sinclair/typebox';
import { CodexEntrySchema } from './codex.ts';
import { rpc } from './rpc.ts';

/** Who reads: the game master (everything) or the players (a shared link: their entries only). */
export const StoryAudienceSchema = Type.Union([Type.Literal('gm'), Type.Literal('players')]);

export const StorySessionSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  session_timestamp: Type.String(),
  /** Whether the character's player was at the session (spoke in it). */
  present: Type.Boolean(),
});

/** GET /api/groups/{id}/character-recap?character=. */
export const CharacterRecapSchema = Type.Object({
  group_id: Type.String(),
  character: Type.String(),
  /** The speaker who plays the character (the Who Is Who map). */
  player: Type.String(),
  /** Markdown with links to the moments (offline: the campaign's own lines, quoted). */
  text: Type.String(),
  sessions: Type.Array(StorySessionSchema),
  /** The codex entries the character met, as the audience may read them. */
  entries: Type.Array(CodexEntrySchema),
});
export type CharacterRecap = Static<typeof CharacterRecapSchema>;

export const CharacterRecapQuerySchema = Type.Object({
  character: Type.Optional(Type.String({ maxLength: 1_000 })),
});

/** GET /api/groups/{id}/previously. */
export const PreviouslySchema = Type.Object({
  group_id: Type.String(),
  text: Type.String(),
  /** The session the next one follows; null before the first. */
  session: Type.Union([
    Type.Object({ id: Type.String(), name: Type.String(), session_timestamp: Type.String() }),
    Type.Null(),
  ]),
  entries: Type.Array(CodexEntrySchema),
});
export type Previously = Static<typeof PreviouslySchema>;

/** svc.summary.character-recap: not_found for another owner's group or an unknown character. */
export const characterRecapRpc = rpc(
  'summary',
  'character-recap',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    character: Type.String({ maxLength: 1_000 }),
    audience: StoryAudienceSchema,
  }),
  CharacterRecapSchema,
);

/** svc.summary.previously: "previously on" for the group's next session. */
export const previouslyRpc = rpc(
  'summary',
  'previously',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), id: Type.String(), audience: StoryAudienceSchema }),
  PreviouslySchema,
);
