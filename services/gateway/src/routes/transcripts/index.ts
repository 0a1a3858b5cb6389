import {
  ActiveSessionSchema,
  assignTranscriptGroupRpc,
  createManualTranscriptRpc,
  deleteTranscriptRpc,
  getNotesRpc,
  getTranscriptRpc,
  listActiveTranscriptsRpc,
  listTranscriptsPageRpc,
  NotesSchema,
  OkSchema,
  putNotesRpc,
  renameTranscriptRpc,
  SessionNameField,
  TranscriptListItemSchema,
  TranscriptSchema,
  updateTranscriptRpc,
  updateTranscriptSummaryRpc,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { nextPageLink, PageQuery, pageRequest } from '../../lib/paging.ts';
import { requireAuth } from '../../plugins/auth.ts';
import audioRoutes from './audio.ts';

/**
 * Bodies that may carry a transcript of 500,000 characters: at most 3 bytes of UTF-8 per
 * UTF-16 unit (1.5 MB), plus JSON escapes and the other fields.
 */
export const TRANSCRIPT_BODY_LIMIT = Math.ceil(2.5 * 1024 * 1024);

const IdParams = Type.Object({ id: Type.String() });
/** Form fields stay optional strings: the transcript service answers the specification's messages. */
const ManualBody = Type.Object({
  name: SessionNameField,
  session_date: Type.Optional(Type.String()),
  summary: Type.Optional(Type.String()),
  transcript: Type.Optional(Type.String()),
  group_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
const UpdateBody = Type.Object({
  name: SessionNameField,
  summary: Type.Optional(Type.String()),
  session_date: Type.Optional(Type.String()),
  transcript: Type.Optional(Type.String()),
});

/** /api/transcripts: sessions of the signed-in user. */
export default async function transcriptRoutes(app: FastifyInstance): Promise<void> {
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;
  await app.register(audioRoutes);

  // One page per request (see lib/paging.ts): the body stays the specification's list.
  app.get<{ Querystring: PageQuery }>(
    '/transcripts',
    { schema: { querystring: PageQuery, response: { 200: Type.Array(TranscriptListItemSchema) } } },
    async (req, reply) => {
      const paging = pageRequest(req.query);
      const page = await call(bus, listTranscriptsPageRpc, { owner_id: req.user!.id, ...paging });
      nextPageLink(req, reply, paging.limit, page.next);
      return page.items;
    },
  );

  // A static path: fastify matches it before '/transcripts/:id', whatever the order of registration.
  app.get('/transcripts/active', { schema: { response: { 200: Type.Array(ActiveSessionSchema) } } }, (req) =>
    call(bus, listActiveTranscriptsRpc, { owner_id: req.user!.id }),
  );

  app.post<{ Body: typeof ManualBody.static }>(
    '/transcripts/manual',
    {
      bodyLimit: TRANSCRIPT_BODY_LIMIT,
      schema: { body: ManualBody, response: { 200: TranscriptListItemSchema } },
    },
    (req) => call(bus, createManualTranscriptRpc, { ...req.body, owner_id: req.user!.id }),
  );

  app.get<{ Params: typeof IdParams.static }>(
    '/transcripts/:id',
    { schema: { params: IdParams, response: { 200: TranscriptSchema } } },
    (req) => call(bus, getTranscriptRpc, { owner_id: req.user!.id, id: req.params.id }),
  );

  app.put<{ Params: typeof IdParams.static; Body: typeof UpdateBody.static }>(
    '/transcripts/:id',
    {
      bodyLimit: TRANSCRIPT_BODY_LIMIT,
      schema: { params: IdParams, body: UpdateBody, response: { 200: TranscriptListItemSchema } },
    },
    (req) => call(bus, updateTranscriptRpc, { ...req.body, owner_id: req.user!.id, id: req.params.id }),
  );

  app.put<{ Params: typeof IdParams.static; Body: { name?: string } }>(
    '/transcripts/:id/rename',
    {
      schema: {
        params: IdParams,
        body: Type.Object({ name: SessionNameField }),
        response: { 200: TranscriptListItemSchema },
      },
    },
    (req) =>
      call(bus, renameTranscriptRpc, { owner_id: req.user!.id, id: req.params.id, name: req.body.name }),
  );

  app.put<{ Params: typeof IdParams.static; Body: { group_id: string } }>(
    '/transcripts/:id/assign-group',
    {
      schema: {
        params: IdParams,
        body: Type.Object({ group_id: Type.String() }),
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

  app.delete<{ Params: typeof IdParams.static }>(
    '/transcripts/:id/remove-group',
    { schema: { params: IdParams, response: { 200: TranscriptListItemSchema } } },
    (req) =>
      call(bus, assignTranscriptGroupRpc, { owner_id: req.user!.id, id: req.params.id, group_id: null }),
  );

  app.put<{ Params: typeof IdParams.static; Body: { summary?: string } }>(
    '/transcripts/:id/summary',
    {
      schema: {
        params: IdParams,
        body: Type.Object({ summary: Type.Optional(Type.String()) }),
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

  app.delete<{ Params: typeof IdParams.static }>(
    '/transcripts/:id',
    { schema: { params: IdParams, response: { 200: OkSchema } } },
    (req) => call(bus, deleteTranscriptRpc, { owner_id: req.user!.id, id: req.params.id }),
  );

  app.get<{ Params: typeof IdParams.static }>(
    '/transcripts/:id/notes',
    { schema: { params: IdParams, response: { 200: NotesSchema } } },
    (req) => call(bus, getNotesRpc, { owner_id: req.user!.id, id: req.params.id }),
  );

  app.put<{ Params: typeof IdParams.static; Body: { content: string } }>(
    '/transcripts/:id/notes',
    { schema: { params: IdParams, body: NotesSchema, response: { 200: NotesSchema } } },
    (req) => call(bus, putNotesRpc, { owner_id: req.user!.id, id: req.params.id, content: req.body.content }),
  );
}
