// The baseline of `pnpm bench gateway`: one fastify process answering the same three requests
// (list, one session, rename) by running the transcript service's own handlers and SQL
// directly, with no gateway, bus, auth service or Redis in between. It authenticates every
// request as the gateway does: the access token from the cookie or the Authorization header
// (the gateway's own `requestTokens`), checked through the gateway's SessionCache whose loader
// runs the auth service's verify-session handler (HS256 signature, issuer, audience, expiry,
// the session's row) in this process; the session's user owns what is read.
// On PostgreSQL (DATABASE_URL and AUTH_JWT_SECRET of the cluster being compared: it reads the
// cluster's rows and accepts its tokens) or on PGlite in DATA_DIR (migrated, with one user per
// size in BASELINE_SIZES_KB, each signed in and seeded with BASELINE_SESSIONS sessions).
// Run as a child process by gateway.ts; prints one JSON line when ready:
// {port, users: [{kb, token, ids}]} (users empty on PostgreSQL).
import cookie from '@fastify/cookie';
import {
  IdParamsSchema,
  RenameTranscriptBodySchema,
  TranscriptListItemSchema,
  TranscriptSchema,
  type AuthUser,
} from '@chronicler/contracts';
import {
  createBus,
  createLogger,
  EventOutbox,
  loadConfig,
  migrate,
  openDatabase,
  schemaFor,
} from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import path from 'node:path';
import { AuthConfigSchema, resolveSettings } from '../../services/auth/src/config.ts';
import { AuthStore } from '../../services/auth/src/db/store.ts';
import { verifySession } from '../../services/auth/src/handlers/verify-session.ts';
import { signIn, type AuthDeps } from '../../services/auth/src/sessions.ts';
import { TokenService } from '../../services/auth/src/tokens.ts';
import { SessionCache } from '../../services/gateway/src/lib/session-cache.ts';
import { nextPageLink, PageQuery, pageRequest } from '../../services/gateway/src/lib/paging.ts';
import { requestTokens } from '../../services/gateway/src/plugins/auth.ts';
import { LiveStore } from '../../services/transcript/src/db/live-store.ts';
import { SpeakerNameStore } from '../../services/transcript/src/db/speaker-names.ts';
import { TranscriptStore } from '../../services/transcript/src/db/store.ts';
import { getTranscript } from '../../services/transcript/src/handlers/get-transcript.ts';
import { listPage } from '../../services/transcript/src/handlers/list-page.ts';
import { renameTranscript } from '../../services/transcript/src/handlers/rename-transcript.ts';
import { repoRoot } from '../support/system.ts';
import { sessionContent } from './gateway.ts';

const SCHEMA = schemaFor('transcript');
const AUTH_SCHEMA = schemaFor('auth');
const onPostgres = Boolean(process.env.DATABASE_URL);
const db = await openDatabase(
  onPostgres ? { url: process.env.DATABASE_URL! } : { dataDir: process.env.DATA_DIR! },
);
if (!onPostgres) {
  for (const [schema, dir] of [
    [AUTH_SCHEMA, 'services/auth/migrations'],
    [SCHEMA, 'services/transcript/migrations'],
  ] as const) {
    await migrate(db, { schema, migrationsDir: path.join(repoRoot, dir) });
  }
}
const settings = resolveSettings(loadConfig(AuthConfigSchema), onPostgres ? 'cluster' : 'embedded');
const authStore = new AuthStore(db, AUTH_SCHEMA);
const auth: AuthDeps = { settings, store: authStore, tokens: await TokenService.create(settings, authStore) };
const verify = verifySession(auth);
// The gateway's cache and TTL (SESSION_CACHE_TTL_MS, 30 s by default), as plugins/auth.ts uses it.
const sessions = new SessionCache(Number(process.env.SESSION_CACHE_TTL_MS ?? 30_000));

const store = new TranscriptStore(db, SCHEMA);
// The baseline answers reads and a rename: nothing it does writes an event, but the live store
// is built with its outbox (on an in-process bus) as the service builds it.
const logger = createLogger(null, { level: 'warn' });
const outbox = new EventOutbox({
  db,
  schema: SCHEMA,
  bus: await createBus({ prefix: 'baseline', name: 'gateway-baseline', logger }),
  logger,
});
const live = new LiveStore(db, SCHEMA, outbox);

const users: { kb: number; token: string; ids: string[] }[] = [];
if (!onPostgres) {
  // PGlite: a database of its own, seeded like the system it is compared with.
  for (const kb of (process.env.BASELINE_SIZES_KB ?? '1').split(',').map(Number)) {
    const signedIn = await signIn(auth, {
      provider: 'local',
      subject: `bench-baseline-${kb}`,
      username: `bench-baseline-${kb}`,
      avatar: null,
      email: null,
    });
    const ids: string[] = [];
    for (let i = 0; i < Number(process.env.BASELINE_SESSIONS ?? 10); i++) {
      // Seed rows: no summary is wanted for them, so no event goes with them.
      const row = await store.createManual(
        signedIn.user.id,
        {
          name: `Session ${i + 1}`,
          sessionTimestamp: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
          summary: 'The party rests at the inn.',
          content: sessionContent(kb),
          preview: 'GM: You enter the tavern.',
          groupId: null,
        },
        async () => {},
      );
      ids.push(row.id);
    }
    users.push({ kb, token: signedIn.token, ids });
  }
}

const list = listPage(store);
const one = getTranscript(store, live, new SpeakerNameStore(db, SCHEMA));
const rename = renameTranscript(store);
const app = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>();
await app.register(cookie);
app.decorateRequest('user', null);
// The gateway's check (plugins/auth.ts onRequest): the first token that verifies signs the
// request in; none answers 401.
app.addHook('onRequest', async (req, reply) => {
  for (const { token } of requestTokens(req)) {
    if (token.length > 8192 || token.split('.').length !== 3) continue;
    const result = await sessions.check(token, async () => {
      const r = await verify({ token });
      return r.valid ? r : null;
    });
    if (result) {
      req.user = result.user;
      return;
    }
  }
  return reply.code(401).send({ detail: 'Authentication required' });
});
const owner = (user: AuthUser | null): string => user!.id;
// The same routes, schemas and paging helpers as the gateway's, so only the path between differs.
app.get(
  '/api/transcripts',
  { schema: { querystring: PageQuery, response: { 200: Type.Array(TranscriptListItemSchema) } } },
  async (req, reply) => {
    const paging = pageRequest(req.query);
    const page = await list({ owner_id: owner(req.user), ...paging });
    nextPageLink(req, reply, paging.limit, page.next);
    return page.items;
  },
);
app.get(
  '/api/transcripts/:id',
  { schema: { params: IdParamsSchema, response: { 200: TranscriptSchema } } },
  (req) => one({ owner_id: owner(req.user), id: req.params.id, raw: true }),
);
app.put(
  '/api/transcripts/:id/rename',
  {
    schema: {
      params: IdParamsSchema,
      body: RenameTranscriptBodySchema,
      response: { 200: TranscriptListItemSchema },
    },
  },
  (req) => rename({ owner_id: owner(req.user), id: req.params.id, name: req.body.name }),
);
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(
  `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0, users })}\n`,
);
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => db.close())
    .finally(() => process.exit(0));
});
