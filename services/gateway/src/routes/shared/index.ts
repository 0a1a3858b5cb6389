import {
  getGroupRpc,
  getTranscriptRpc,
  LIST_PAGE_MAX,
  listTranscriptsPageRpc,
  resolveShareRpc,
  SharedSessionParamsSchema,
  SharedTokenParamsSchema,
  SharedTranscriptSchema,
  SharedViewSchema,
  type SharedSessionItem,
  type SharedTranscript,
  type SharedView,
  type Transcript,
} from '@chronicler/contracts';
import { call, ServiceError, type Bus } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';

const notFound = (): ServiceError => new ServiceError('not_found', 'Share link not found');

/** Only what a player may read: never the notes, the owner, or anything to write with. */
const sharedTranscript = (t: Transcript): SharedTranscript => ({
  id: t.id,
  name: t.name,
  session_timestamp: t.session_timestamp,
  status: t.status,
  summary: t.summary,
  content: t.content,
});

async function groupSessions(bus: Bus, ownerId: string, groupId: string): Promise<SharedSessionItem[]> {
  const sessions: SharedSessionItem[] = [];
  let after: string | null = null;
  do {
    const page: {
      items: { id: string; name: string; session_timestamp: string; summary: string }[];
      next: string | null;
    } = await call(bus, listTranscriptsPageRpc, {
      owner_id: ownerId,
      group_id: groupId,
      limit: LIST_PAGE_MAX,
      ...(after ? { after } : {}),
    });
    for (const s of page.items)
      sessions.push({ id: s.id, name: s.name, session_timestamp: s.session_timestamp, summary: s.summary });
    after = page.next;
  } while (after);
  return sessions;
}

/**
 * /api/shared/{token}: what a read-only link shows, to anyone holding it, signed in or not.
 * Read-only by construction (GET only, no owner id in the answer); an unknown, revoked or
 * expired token answers 404, and every request counts against the per-address limit for
 * secrets (RATE_LIMIT_SIGN_IN_MAX).
 */
export default async function sharedRoutes(fastify: FastifyInstance): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const bus = app.ctx.bus;
  const config = { public: true, shareLink: true };

  app.get(
    '/shared/:token',
    { config, schema: { params: SharedTokenParamsSchema, response: { 200: SharedViewSchema } } },
    async (req): Promise<SharedView> => {
      const share = await call(bus, resolveShareRpc, { token: req.params.token });
      if (share.kind === 'transcript') {
        const t = await call(bus, getTranscriptRpc, { owner_id: share.owner_id, id: share.target_id });
        return { kind: 'transcript', expires_at: share.expires_at, transcript: sharedTranscript(t) };
      }
      const group = await call(bus, getGroupRpc, { owner_id: share.owner_id, id: share.target_id });
      return {
        kind: 'group',
        expires_at: share.expires_at,
        group: { name: group.name, summary: group.summary || group.llm_summary },
        sessions: await groupSessions(bus, share.owner_id, share.target_id),
      };
    },
  );

  app.get(
    '/shared/:token/sessions/:sessionId',
    { config, schema: { params: SharedSessionParamsSchema, response: { 200: SharedTranscriptSchema } } },
    async (req) => {
      const share = await call(bus, resolveShareRpc, { token: req.params.token });
      const wanted = req.params.sessionId;
      // A campaign's link opens its sessions; a session's link opens that session only.
      if (share.kind === 'transcript' && wanted !== share.target_id) throw notFound();
      const t = await call(bus, getTranscriptRpc, { owner_id: share.owner_id, id: wanted }).catch(() => {
        throw notFound();
      });
      if (share.kind === 'group' && t.group_id !== share.target_id) throw notFound();
      return sharedTranscript(t);
    },
  );
}
