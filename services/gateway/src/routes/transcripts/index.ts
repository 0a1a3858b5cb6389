import {
  ActiveSessionSchema,
  AssignGroupBodySchema,
  assignTranscriptGroupRpc,
  CreateManualTranscriptBodySchema,
  createManualTranscriptRpc,
  deleteTranscriptRpc,
  getNotesRpc,
  getTranscriptIfChangedRpc,
  IdParamsSchema,
  listActiveTranscriptsRpc,
  listTranscriptsPageIfChangedRpc,
  NotesSchema,
  OkSchema,
  putNotesRpc,
  RenameTranscriptBodySchema,
  SessionSpotlightSchema,
  SessionUsageSchema,
  sessionUsageRpc,
  transcriptExistsRpc,
  sessionSpotlightRpc,
  renameTranscriptRpc,
  TranscriptListItemSchema,
  TranscriptSchema,
  TranscriptSummaryBodySchema,
  UpdateTranscriptBodySchema,
  updateTranscriptRpc,
  updateTranscriptSummaryRpc,
} from '@chronicler/contracts';
import {
  call,
  callEncoded,
  contentReads,
  listReads,
  ServiceError,
  splitPage,
  splitVersioned,
  type EncodedJson,
} from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ContentCache, etagOf } from '../../lib/content-cache.ts';
import { nextPageLink, PageQuery, pageRequest } from '../../lib/paging.ts';
import { listFilters, TranscriptListQuery } from '../../lib/list-filters.ts';
import { requireAuth } from '../../plugins/auth.ts';
import audioRoutes from './audio.ts';

/**
 * Bodies that may carry a transcript of 500,000 characters: at most 3 bytes of UTF-8 per
 * UTF-16 unit (1.5 MB), plus JSON escapes and the other fields.
 */
const TRANSCRIPT_BODY_LIMIT = Math.ceil(2.5 * 1024 * 1024);

/**
 * Answers with JSON as it came from the bus: fastify sends a string or bytes of a JSON content
 * type unchanged, so the route's response schema (kept for the API description) does not
 * serialise it again, and bytes read from NATS are not decoded only to be encoded again.
 */
function sendJsonText(reply: FastifyReply, json: EncodedJson | Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(Buffer.isBuffer(json) ? json : json.body);
}

/** 304: the browser's copy (its If-None-Match) is the version still stored. */
function notModified(reply: FastifyReply): FastifyReply {
  return reply.code(304).send();
}

/** /api/transcripts: sessions of the signed-in user. */
export default async function transcriptRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;
  const contents = new ContentCache({
    maxBytes: app.ctx.config.CONTENT_CACHE_MB * 1024 * 1024,
    idleMs: app.ctx.config.CONTENT_CACHE_IDLE_MS,
  });
  await app.register(audioRoutes);

  // One page per request (see lib/paging.ts): the body stays the specification's list.
  // `q`, `group_id` and `ungrouped=true` narrow it (the transcript service checks them).
  app.get(
    '/transcripts',
    {
      schema: {
        querystring: Type.Composite([PageQuery, TranscriptListQuery]),
        response: { 200: Type.Array(TranscriptListItemSchema) },
      },
    },
    // A page read before is kept like a session (lib/content-cache.ts): the service checks
    // whether the page's rows are still the versions held, and the page crosses the bus only
    // when not. The version is the answer's ETag, so a browser's refetch of an unchanged page
    // gets 304.
    async (req, reply) => {
      const owner = req.user!.id;
      const paging = pageRequest(req.query);
      const filters = listFilters(req.query);
      const request = {
        owner_id: owner,
        ...paging,
        ...(filters.search !== undefined ? { search: filters.search } : {}),
        ...(filters.group_id !== undefined ? { group_id: filters.group_id } : {}),
        ...(filters.ungrouped ? { ungrouped: true } : {}),
      };
      // The same page of the same list is the same key, whatever the query's order or spelling.
      const key = `list:${JSON.stringify([paging.limit, paging.after ?? '', filters.search ?? '', filters.group_id ?? '', filters.ungrouped])}`;
      const read = contents.begin(owner, key, req.headers['if-none-match']);
      const answer = splitVersioned(
        await callEncoded(bus, listTranscriptsPageIfChangedRpc, {
          ...request,
          ...(read.known !== undefined ? { known: read.known } : {}),
        }),
        'page',
        'Reply of svc.transcript.list-page-if-changed',
      );
      if (answer.version === null)
        throw new ServiceError('internal', 'A page of the list came without a version');
      reply.header('etag', etagOf(answer.version)).header('cache-control', 'private, no-cache');
      const page =
        'unchanged' in answer
          ? undefined
          : splitPage(answer.value, 'Reply of svc.transcript.list-page-if-changed');
      const sent = contents.settle(
        read,
        answer.version,
        page && { body: page.items.body, next: page.next },
        (result) => listReads.inc({ result }),
      );
      if (!sent) return notModified(reply);
      nextPageLink(req, reply, paging.limit, sent.next ?? null, {
        q: filters.search,
        group_id: filters.group_id,
        ungrouped: filters.ungrouped ? 'true' : undefined,
      });
      return sendJsonText(reply, sent.body);
    },
  );

  // A static path: fastify matches it before '/transcripts/:id', whatever the order of registration.
  app.get(
    '/transcripts/active',
    { schema: { response: { 200: Type.Array(ActiveSessionSchema) } } },
    async (req) => {
      const sessions = await call(bus, listActiveTranscriptsRpc, { owner_id: req.user!.id });
      // The sockets are the gateways': the transcript service cannot count them.
      const viewers = await app.liveViewers(sessions.map((s) => s.transcript_id));
      return sessions.map((s, i) => ({ ...s, connected_clients: viewers[i] ?? 0 }));
    },
  );

  app.post(
    '/transcripts/manual',
    {
      bodyLimit: TRANSCRIPT_BODY_LIMIT,
      schema: { body: CreateManualTranscriptBodySchema, response: { 200: TranscriptListItemSchema } },
    },
    (req) => call(bus, createManualTranscriptRpc, { ...req.body, owner_id: req.user!.id }),
  );

  app.get(
    '/transcripts/:id',
    { schema: { params: IdParamsSchema, response: { 200: TranscriptSchema } } },
    // The service's reply is sent as the JSON text it came in (a Transcript, as the schema
    // documents): parsing a 4-hour session's 500,000 characters only to serialise them again
    // was the gateway's largest cost on this route (issue 46).
    // A session read before is kept (lib/content-cache.ts): the service is asked whether the
    // version held is still the stored one, and the content crosses the bus only when not. The
    // version is also the answer's ETag: a browser that has it gets 304 and no body.
    async (req, reply) => {
      const owner = req.user!.id;
      const id = req.params.id;
      const read = contents.begin(owner, id, req.headers['if-none-match']);
      let answer;
      try {
        answer = splitVersioned(
          await callEncoded(bus, getTranscriptIfChangedRpc, {
            owner_id: owner,
            id,
            ...(read.known !== undefined ? { known: read.known } : {}),
          }),
          'transcript',
          'Reply of svc.transcript.get-if-changed',
        );
      } catch (err) {
        if (ServiceError.is(err) && err.code === 'not_found') contents.drop(owner, id);
        throw err;
      }
      if (answer.version === null) {
        // A session being recorded changes with every line: never answered from a cache.
        contents.drop(owner, id);
        if ('unchanged' in answer)
          throw new ServiceError(
            'internal',
            'The transcript service answered unchanged for a session being recorded',
          );
        contentReads.inc({ result: 'recording' });
        reply.header('cache-control', 'no-store');
        return sendJsonText(reply, answer.value);
      }
      reply.header('etag', etagOf(answer.version)).header('cache-control', 'private, no-cache');
      const sent = contents.settle(
        read,
        answer.version,
        'unchanged' in answer ? undefined : { body: answer.value.body },
        (result) => contentReads.inc({ result }),
      );
      if (!sent) return notModified(reply);
      return sendJsonText(reply, sent.body);
    },
  );

  app.put(
    '/transcripts/:id',
    {
      bodyLimit: TRANSCRIPT_BODY_LIMIT,
      schema: {
        params: IdParamsSchema,
        body: UpdateTranscriptBodySchema,
        response: { 200: TranscriptListItemSchema },
      },
    },
    (req) => call(bus, updateTranscriptRpc, { ...req.body, owner_id: req.user!.id, id: req.params.id }),
  );

  app.put(
    '/transcripts/:id/rename',
    {
      schema: {
        params: IdParamsSchema,
        body: RenameTranscriptBodySchema,
        response: { 200: TranscriptListItemSchema },
      },
    },
    (req) =>
      call(bus, renameTranscriptRpc, { owner_id: req.user!.id, id: req.params.id, name: req.body.name }),
  );

  app.put(
    '/transcripts/:id/assign-group',
    {
      schema: {
        params: IdParamsSchema,
        body: AssignGroupBodySchema,
        response: { 200: TranscriptListItemSchema },
      },
    },
    (req) =>
      call(bus, assignTranscriptGroupRpc, {
        owner_id: req.user!.id,
        id: req.params.id,
        group_id: req.body.group_id,
      }),
  );

  app.delete(
    '/transcripts/:id/remove-group',
    { schema: { params: IdParamsSchema, response: { 200: TranscriptListItemSchema } } },
    (req) =>
      call(bus, assignTranscriptGroupRpc, { owner_id: req.user!.id, id: req.params.id, group_id: null }),
  );

  app.put(
    '/transcripts/:id/summary',
    {
      schema: {
        params: IdParamsSchema,
        body: TranscriptSummaryBodySchema,
        response: { 200: TranscriptListItemSchema },
      },
    },
    (req) =>
      call(bus, updateTranscriptSummaryRpc, {
        owner_id: req.user!.id,
        id: req.params.id,
        summary: req.body.summary,
      }),
  );

  app.delete('/transcripts/:id', { schema: { params: IdParamsSchema, response: { 200: OkSchema } } }, (req) =>
    call(bus, deleteTranscriptRpc, { owner_id: req.user!.id, id: req.params.id }),
  );

  // Who had the spotlight: per speaker, time, lines, share and longest silence (see contracts/spotlight.ts).
  app.get(
    '/transcripts/:id/spotlight',
    { schema: { params: IdParamsSchema, response: { 200: SessionSpotlightSchema } } },
    (req) => call(bus, sessionSpotlightRpc, { owner_id: req.user!.id, id: req.params.id }),
  );

  // What the session cost: speech seconds billed and the AI requests about it, at the configured prices.
  app.get(
    '/transcripts/:id/usage',
    { schema: { params: IdParamsSchema, response: { 200: SessionUsageSchema } } },
    async (req) => {
      const owner_id = req.user!.id;
      // The ledger keeps ids as text: the owner is checked on the session itself first.
      const { exists } = await call(bus, transcriptExistsRpc, { owner_id, id: req.params.id });
      if (!exists) throw new ServiceError('not_found', 'Transcript not found');
      return call(bus, sessionUsageRpc, { owner_id, transcript_id: req.params.id });
    },
  );

  app.get(
    '/transcripts/:id/notes',
    { schema: { params: IdParamsSchema, response: { 200: NotesSchema } } },
    (req) => call(bus, getNotesRpc, { owner_id: req.user!.id, id: req.params.id }),
  );

  app.put(
    '/transcripts/:id/notes',
    { schema: { params: IdParamsSchema, body: NotesSchema, response: { 200: NotesSchema } } },
    (req) => call(bus, putNotesRpc, { owner_id: req.user!.id, id: req.params.id, content: req.body.content }),
  );
}
