import { Type } from '@sinclair/typebox';
import { rpc } from './rpc.ts';

/** Chunks and the description of recordings made in the browser, until they are finished. */
export const TABLE_RECORDING_BUCKET = 'table-recordings';

/**
 * Live lines of a recording made at the table (POST /api/table-recordings): the voice bot's
 * pipeline (one LiveSession per recording, the same one a Discord session runs) transcribes
 * the browser's chunks as they are stored, when a streaming provider is configured.
 *
 * svc.voice-bot.table-start: any replica takes the recording (queue group); the session's
 * transcript id is the recording's id. `live: false` when no streaming provider is set (the
 * recording is then kept, to be transcribed later).
 */
export const tableLiveStartRpc = rpc(
  'voice-bot',
  'table-start',
  Type.Object({
    id: Type.String({ pattern: '^[0-9a-f-]{36}$' }),
    owner_id: Type.String({ minLength: 1 }),
    name: Type.String({ maxLength: 200 }),
    group_id: Type.Union([Type.String(), Type.Null()]),
    format: Type.Union([Type.Literal('webm'), Type.Literal('ogg')]),
  }),
  Type.Object({ live: Type.Boolean() }),
);

/**
 * svc.voice-bot.table.<id>.chunk: a chunk of the recording was stored (`table-recordings`
 * bucket, `<id>/<part>/<seq>`); the replica that started it feeds every stored chunk from
 * where it stopped, in order. Served only by that replica (a subject per recording).
 */
export const tableLiveChunkRpc = (id: string) =>
  rpc(
    'voice-bot',
    `table.${id}.chunk`,
    Type.Object({ part: Type.Integer({ minimum: 0 }), seq: Type.Integer({ minimum: 0 }) }),
    Type.Object({ fed: Type.Integer() }),
  );

/**
 * svc.voice-bot.table.<id>.end: the recording is finished: every chunk it names is fed, the
 * last finals awaited and the session ended (its end on the bus); `finals` counts its lines.
 */
export const tableLiveEndRpc = (id: string) =>
  rpc(
    'voice-bot',
    `table.${id}.end`,
    /** How many chunks each part has (part 0 first), as the finish names them. */
    Type.Object({ chunk_counts: Type.Array(Type.Integer({ minimum: 0 }), { minItems: 1, maxItems: 1000 }) }),
    Type.Object({ finals: Type.Integer() }),
  );
