import { Type, type Static } from '@sinclair/typebox';
import { busEvent } from './events.ts';
import { rpc } from './rpc.ts';

/** A session's summary was stored (generated): the voice bot posts its recap back to Discord. */
export const summaryReadyEvent = busEvent(
  'transcript',
  'summary-ready',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), transcript_id: Type.String({ minLength: 1 }) }),
);

const Snowflake = Type.String({ minLength: 1, maxLength: 32, pattern: '^[0-9]+$' });

/**
 * svc.transcript.recap-target: where a bot-recorded session's recap is to be posted (the
 * server's announcement channel), kept with the session by the bot when the recording starts.
 */
export const recapTargetRpc = rpc(
  'transcript',
  'recap-target',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String({ minLength: 1, maxLength: 64 }),
    guild_id: Snowflake,
    channel_id: Snowflake,
  }),
  Type.Object({ ok: Type.Literal(true) }),
);

/** What the bot posts: the session's name and summary, where, and whether the post is this caller's to make. */
export const RecapSchema = Type.Object({
  transcript_id: Type.String(),
  name: Type.String(),
  summary: Type.String(),
  guild_id: Type.String(),
  channel_id: Type.String(),
  started_at: Type.String(),
});
export type Recap = Static<typeof RecapSchema>;

/**
 * svc.transcript.claim-recap: the automatic post of a session's recap, once: the first caller
 * (any replica, any restart) gets the recap with `claimed` true and the session marked posted;
 * `release` (after a failed post) unmarks it so a redelivery tries again.
 */
export const claimRecapRpc = rpc(
  'transcript',
  'claim-recap',
  Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), release: Type.Optional(Type.Boolean()) }),
  Type.Object({ claimed: Type.Boolean(), recap: Type.Union([RecapSchema, Type.Null()]) }),
);

/**
 * svc.transcript.guild-recaps: the owner's bot-recorded sessions of one server, newest first
 * (`q`: names containing it, any case), for /recap and its autocomplete.
 */
export const guildRecapsRpc = rpc(
  'transcript',
  'guild-recaps',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    guild_id: Snowflake,
    q: Type.Optional(Type.String({ maxLength: 100 })),
    id: Type.Optional(Type.String({ maxLength: 64 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 25 })),
  }),
  Type.Array(RecapSchema),
);
