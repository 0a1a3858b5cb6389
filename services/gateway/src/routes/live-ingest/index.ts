import {
  getUserRpc,
  groupExistsRpc,
  LIVE_INGEST_KEY_FILE,
  LiveIngestEndBodySchema,
  LiveIngestStartBodySchema,
  LiveIngestStartResponseSchema,
  LiveIngestUtterancesBodySchema,
  liveMsgId,
  liveSubject,
  OkSchema,
  UUID_PATTERN,
  type LiveSessionEnd,
  type LiveSessionStart,
  type LiveUtterance,
} from '@chronicler/contracts';
import { call, ServiceError } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

const IdParams = Type.Object({ id: Type.String({ pattern: UUID_PATTERN }) });

/**
 * /api/live-ingest: plays a live session into a running system from outside it, for
 * replays, demos and load against an embedded instance (whose bus is inside the process).
 * Only an admin or the machine itself may use it: the machine proves itself with the key
 * the embedded system writes to DATA_DIR/live-ingest.key (readable by whoever may read the
 * data), or a cluster's LIVE_INGEST_KEY. A session started here gets an ingest token (an
 * HMAC of its id) that every write must carry, so this entry can only ever write into
 * sessions it started itself: never into a recording of the bot, never into another
 * user's existing session.
 */
export default async function liveIngestRoutes(app: FastifyInstance): Promise<void> {
  const { bus, platform, config } = app.ctx;
  const machineKey =
    config.LIVE_INGEST_KEY ?? (platform.mode === 'embedded' ? await embeddedKey(platform.dataDir) : null);
  // Tokens must verify on every gateway: derive them from the shared key when there is one.
  const tokenSecret = machineKey ?? randomBytes(32).toString('hex');
  const tokenFor = (transcriptId: string) =>
    createHmac('sha256', tokenSecret).update(`live-ingest:${transcriptId}`).digest('base64url');

  async function allowed(req: FastifyRequest, reply: FastifyReply): Promise<void> {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
    if (bearer && machineKey && sameSecret(bearer, machineKey)) return;
    if (req.user?.is_admin) return;
    if (req.user) return reply.code(403).send({ detail: 'Admin access required' });
    return reply.code(401).send({ detail: 'Authentication required' });
  }

  function checkToken(id: string, token: string): void {
    if (!sameSecret(token, tokenFor(id))) throw new ServiceError('not_found', 'Live session not found');
  }

  const opts = { config: { public: true, feed: true }, preHandler: allowed };

  app.post(
    '/live-ingest/sessions',
    {
      ...opts,
      schema: { body: LiveIngestStartBodySchema, response: { 200: LiveIngestStartResponseSchema } },
    },
    async (req) => {
      const body = req.body as typeof LiveIngestStartBodySchema.static;
      await call(bus, getUserRpc, { user_id: body.owner_id }).catch((err: unknown) => {
        if (err instanceof ServiceError && err.code === 'not_found')
          throw new ServiceError('bad_request', 'Unknown owner');
        throw err;
      });
      if (body.group_id) {
        const { exists } = await call(bus, groupExistsRpc, { owner_id: body.owner_id, id: body.group_id });
        if (!exists) throw new ServiceError('bad_request', 'Group not found');
      }
      const start: LiveSessionStart = {
        transcript_id: randomUUID(),
        owner_id: body.owner_id,
        ...(body.name?.trim() ? { name: body.name.trim() } : {}),
        ...(body.group_id ? { group_id: body.group_id } : {}),
        started_at: new Date().toISOString(),
        origin: 'replay',
      };
      await bus.publishDurable(liveSubject.start(start.transcript_id), start, {
        msgId: liveMsgId.start(start.transcript_id),
      });
      req.log.info(
        { transcriptId: start.transcript_id, ownerId: start.owner_id },
        'live session started by ingest',
      );
      return {
        transcript_id: start.transcript_id,
        started_at: start.started_at,
        ingest_token: tokenFor(start.transcript_id),
      };
    },
  );

  app.post(
    '/live-ingest/sessions/:id/utterances',
    {
      ...opts,
      schema: { params: IdParams, body: LiveIngestUtterancesBodySchema, response: { 200: OkSchema } },
    },
    async (req) => {
      const { id } = req.params as { id: string };
      const body = req.body as typeof LiveIngestUtterancesBodySchema.static;
      checkToken(id, body.ingest_token);
      // In order: a final must not overtake the one before it.
      for (const { is_final: isFinal, ...rest } of body.utterances) {
        const u: LiveUtterance = { ...rest, transcript_id: id };
        if (isFinal) {
          await bus.publishDurable(liveSubject.final(id), u, { msgId: liveMsgId.final(id, u.utterance_id) });
        } else {
          await bus.publish(liveSubject.interim(id), u);
        }
      }
      return { ok: true as const };
    },
  );

  app.post(
    '/live-ingest/sessions/:id/end',
    { ...opts, schema: { params: IdParams, body: LiveIngestEndBodySchema, response: { 200: OkSchema } } },
    async (req) => {
      const { id } = req.params as { id: string };
      const body = req.body as typeof LiveIngestEndBodySchema.static;
      checkToken(id, body.ingest_token);
      const end: LiveSessionEnd = {
        transcript_id: id,
        ended_at: new Date().toISOString(),
        final_count: body.final_count,
        ...(body.interim_count !== undefined ? { interim_count: body.interim_count } : {}),
        ...(body.error ? { error: body.error } : {}),
      };
      await bus.publishDurable(liveSubject.end(id), end, { msgId: liveMsgId.end(id) });
      return { ok: true as const };
    },
  );
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The embedded system's machine key: made once, readable only by the data directory's owner. */
async function embeddedKey(dataDir: string): Promise<string> {
  const file = path.join(dataDir, LIVE_INGEST_KEY_FILE);
  try {
    const key = (await readFile(file, 'utf8')).trim();
    if (key.length >= 32) return key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await mkdir(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64url');
  await writeFile(file, `${key}\n`, { mode: 0o600 });
  return key;
}
