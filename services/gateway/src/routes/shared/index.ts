import {
  characterRecapRpc,
  previouslyRpc,
  SUMMARY_CALL_TIMEOUT_MS,
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
  type CodexEntry,
  linkedSessions,
  sharedLinks,
} from '@chronicler/contracts';
import { call, ServiceError, type Bus } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';

const notFound = (): ServiceError => new ServiceError('not_found', 'Share link not found');

/**
 * Only what a player may read: never the notes, the owner, or anything to write with. Its
 * summary's links open inside the shared view (`where`), never the owner's pages.
 */
const sharedTranscript = (t: Transcript, where: (sessionId: string) => string | null): SharedTranscript => ({
  id: t.id,
  name: t.name,
  session_timestamp: t.session_timestamp,
  status: t.status,
  summary: sharedLinks(t.summary, where),
  content: t.content,
});

/** Where a link's sessions open: the ones it shows, each on its page inside the shared view. */
const openedBy =
  (token: string, ids: ReadonlySet<string>) =>
  (id: string): string | null =>
    ids.has(id) ? `/shared/${token}/sessions/${id}` : null;

/** A session's own link: its moments open on the link's page; no other session opens through it. */
const onlyItself =
  (token: string, sessionId: string) =>
  (id: string): string | null =>
    id === sessionId ? `/shared/${token}` : null;

/**
 * A character's story or "previously on" as a player reads it: only the codex entries marked for
 * players, and the moments it links open the link's own session pages (signed out).
 */
async function sharedStory(
  bus: Bus,
  token: string,
  share: { owner_id: string; kind: 'character-recap' | 'previously'; target_id: string; subject: string },
): Promise<{ text: string; entries: CodexEntry[]; opens: ReadonlySet<string> }> {
  const request = { owner_id: share.owner_id, id: share.target_id, audience: 'players' as const };
  const slow = { timeoutMs: SUMMARY_CALL_TIMEOUT_MS };
  const story =
    share.kind === 'character-recap'
      ? await call(bus, characterRecapRpc, { ...request, character: share.subject }, slow)
      : await call(bus, previouslyRpc, request, slow);
  return {
    text: sharedLinks(story.text, (id) => `/shared/${token}/sessions/${id}`),
    entries: story.entries,
    // The sessions the story links to, read from the owner's links before they are rewritten.
    opens: linkedSessions(story.text),
  };
}

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
 * expired token answers 404, and every request counts against the address's limit for the
 * link (RATE_LIMIT_SHARE_MAX), apart from sign-in's.
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
        const transcript = sharedTranscript(t, onlyItself(req.params.token, t.id));
        return { kind: 'transcript', expires_at: share.expires_at, transcript };
      }
      if (share.kind === 'character-recap' || share.kind === 'previously') {
        const group = await call(bus, getGroupRpc, { owner_id: share.owner_id, id: share.target_id });
        const { text, entries } = await sharedStory(bus, req.params.token, { ...share, kind: share.kind });
        const common = { expires_at: share.expires_at, group: { name: group.name }, text, entries };
        return share.kind === 'previously'
          ? { kind: 'previously', ...common }
          : { kind: 'character-recap', character: share.subject, ...common };
      }
      const group = await call(bus, getGroupRpc, { owner_id: share.owner_id, id: share.target_id });
      const sessions = await groupSessions(bus, share.owner_id, share.target_id);
      const where = openedBy(req.params.token, new Set(sessions.map((s) => s.id)));
      return {
        kind: 'group',
        expires_at: share.expires_at,
        group: { name: group.name, summary: sharedLinks(group.summary || group.llm_summary, where) },
        sessions: sessions.map((s) => ({ ...s, summary: sharedLinks(s.summary, where) })),
      };
    },
  );

  app.get(
    '/shared/:token/sessions/:sessionId',
    { config, schema: { params: SharedSessionParamsSchema, response: { 200: SharedTranscriptSchema } } },
    async (req) => {
      const share = await call(bus, resolveShareRpc, { token: req.params.token });
      const wanted = req.params.sessionId;
      // A campaign's link opens its sessions; a session's link opens that session only; a story's
      // link the sessions its text links to (a character's story: those the character was at).
      const { token } = req.params;
      if (share.kind === 'transcript' && wanted !== share.target_id) throw notFound();
      let opens: ReadonlySet<string> = new Set([wanted]);
      if (share.kind === 'character-recap' || share.kind === 'previously') {
        ({ opens } = await sharedStory(bus, token, { ...share, kind: share.kind }));
        if (!opens.has(wanted)) throw notFound();
      }
      const t = await call(bus, getTranscriptRpc, { owner_id: share.owner_id, id: wanted }).catch(() => {
        throw notFound();
      });
      if (share.kind !== 'transcript' && t.group_id !== share.target_id) throw notFound();
      if (share.kind === 'group') {
        opens = new Set((await groupSessions(bus, share.owner_id, share.target_id)).map((s) => s.id));
      }
      if (share.kind === 'transcript') return sharedTranscript(t, onlyItself(token, t.id));
      return sharedTranscript(t, openedBy(token, opens));
    },
  );
}
