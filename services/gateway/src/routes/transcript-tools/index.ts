import {
  EditLineBodySchema,
  editLineRpc,
  EditLineResultSchema,
  exportGroupRpc,
  exportTranscriptRpc,
  getSpeakersRpc,
  GroupExportQuerySchema,
  IdParamsSchema,
  lineEditsRpc,
  LineEditsSchema,
  LineParamsSchema,
  PutSpeakersBodySchema,
  putSpeakersRpc,
  SessionSpeakersSchema,
  TranscriptExportQuerySchema,
  UNTIMED_LINES_HEADER,
  type ExportFile,
  type GroupExportFormat,
  type IdParams,
  type TranscriptExportFormat,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { create as contentDisposition } from 'content-disposition';
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireAuth } from '../../plugins/auth.ts';

/** How the OpenAPI document describes a file answer (the body is the file itself, not JSON). */
const fileResponse = (description: string, types: string[]) => ({
  200: {
    description,
    content: Object.fromEntries(types.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])),
  },
});

function sendFile(reply: FastifyReply, file: ExportFile, subtitles: boolean) {
  reply
    .header('content-type', file.content_type)
    .header('content-disposition', contentDisposition(file.filename))
    .header('cache-control', 'no-store');
  // Subtitles have cues only for lines with a time: the header says how many lines got none.
  if (subtitles) reply.header(UNTIMED_LINES_HEADER, String(file.untimed_lines));
  return reply.send(Buffer.from(file.body, file.encoding));
}

/** Line edits, speaker names and exports of the signed-in user's sessions and groups. */
export default async function transcriptToolRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('preHandler', requireAuth);
  const bus = app.ctx.bus;
  // Where an exported file's links lead: PUBLIC_URL, else the address the user reached us at.
  const appAddress = (req: FastifyRequest): string =>
    app.ctx.config.PUBLIC_URL ?? `${req.protocol}://${req.host}`;

  app.patch(
    '/transcripts/:id/lines/:lineId',
    {
      schema: { params: LineParamsSchema, body: EditLineBodySchema, response: { 200: EditLineResultSchema } },
    },
    (req) =>
      call(bus, editLineRpc, {
        ...req.body,
        owner_id: req.user!.id,
        id: req.params.id,
        line: req.params.lineId,
      }),
  );

  app.get(
    '/transcripts/:id/lines/edits',
    { schema: { params: IdParamsSchema, response: { 200: LineEditsSchema } } },
    (req) => call(bus, lineEditsRpc, { owner_id: req.user!.id, id: req.params.id }),
  );

  app.get(
    '/transcripts/:id/speakers',
    { schema: { params: IdParamsSchema, response: { 200: SessionSpeakersSchema } } },
    (req) => call(bus, getSpeakersRpc, { owner_id: req.user!.id, id: req.params.id }),
  );

  app.put(
    '/transcripts/:id/speakers',
    {
      schema: {
        params: IdParamsSchema,
        body: PutSpeakersBodySchema,
        response: { 200: SessionSpeakersSchema },
      },
    },
    (req) =>
      call(bus, putSpeakersRpc, { owner_id: req.user!.id, id: req.params.id, speakers: req.body.speakers }),
  );

  // Both exports: the id's owner checked by the service (404 otherwise), the format by the schema.
  const exportSchema = (querystring: TSchema, description: string, types: string[]) => ({
    schema: { params: IdParamsSchema, querystring, response: fileResponse(description, types) },
  });

  app.get(
    '/transcripts/:id/export',
    exportSchema(TranscriptExportQuerySchema, 'The session as a file (Content-Disposition: attachment)', [
      'text/markdown',
      'text/plain',
      'application/x-subrip',
      'text/vtt',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/json',
    ]),
    async (
      req: FastifyRequest<{ Params: IdParams; Querystring: { format: TranscriptExportFormat } }>,
      reply,
    ) => {
      const { format } = req.query;
      const file = await call(bus, exportTranscriptRpc, {
        owner_id: req.user!.id,
        id: req.params.id,
        format,
        base_url: appAddress(req),
      });
      return sendFile(reply, file, format === 'srt' || format === 'vtt');
    },
  );

  app.get(
    '/groups/:id/export',
    exportSchema(GroupExportQuerySchema, 'The campaign as one Markdown file or a zip of its sessions', [
      'text/markdown',
      'application/zip',
    ]),
    async (req: FastifyRequest<{ Params: IdParams; Querystring: { format: GroupExportFormat } }>, reply) => {
      const { format } = req.query;
      const file = await call(bus, exportGroupRpc, {
        owner_id: req.user!.id,
        id: req.params.id,
        format,
        base_url: appAddress(req),
      });
      return sendFile(reply, file, false);
    },
  );
}
