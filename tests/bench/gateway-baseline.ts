// The baseline of `pnpm bench gateway`: one fastify process answering the same three requests
// (list, one session, rename) by running the transcript service's own handlers and SQL
// directly, with no gateway, bus, auth service or Redis in between. On PostgreSQL
// (DATABASE_URL, the database of the cluster being compared, read as BASELINE_OWNER) or on
// PGlite in DATA_DIR (migrated and seeded with BASELINE_SESSIONS sessions of its own owner).
// Run as a child process by gateway.ts; prints one JSON line {port, owner, ids} when ready.
import {
  IdParamsSchema,
  RenameTranscriptBodySchema,
  TranscriptListItemSchema,
  TranscriptSchema,
} from '@chronicler/contracts';
import { createBus, createLogger, EventOutbox, migrate, openDatabase } from '@chronicler/kit';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import Fastify from 'fastify';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { LiveStore } from '../../services/transcript/src/db/live-store.ts';
import { SpeakerNameStore } from '../../services/transcript/src/db/speaker-names.ts';
import { TranscriptStore } from '../../services/transcript/src/db/store.ts';
import { getTranscript } from '../../services/transcript/src/handlers/get-transcript.ts';
import { listPage } from '../../services/transcript/src/handlers/list-page.ts';
import { renameTranscript } from '../../services/transcript/src/handlers/rename-transcript.ts';
import { nextPageLink, PageQuery, pageRequest } from '../../services/gateway/src/lib/paging.ts';
import { repoRoot } from '../support/system.ts';
import { sessionContent } from './gateway.ts';

const SCHEMA = 'transcript';
const db = await openDatabase(
  process.env.DATABASE_URL ? { url: process.env.DATABASE_URL } : { dataDir: process.env.DATA_DIR! },
);
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
let owner = process.env.BASELINE_OWNER ?? '';
if (!owner) {
  // PGlite: a database of its own, seeded like the system it is compared with.
  await migrate(db, { schema: SCHEMA, migrationsDir: path.join(repoRoot, 'services/transcript/migrations') });
  owner = randomUUID();
  for (let i = 0; i < Number(process.env.BASELINE_SESSIONS ?? 10); i++) {
    // Seed rows: no summary is wanted for them, so no event goes with them.
    await store.createManual(
      owner,
      {
        name: `Session ${i + 1}`,
        sessionTimestamp: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
        summary: 'The party rests at the inn.',
        content: sessionContent(Number(process.env.BASELINE_SESSION_KB ?? 1)),
        preview: 'GM: You enter the tavern.',
        groupId: null,
      },
      async () => {},
    );
  }
}

const list = listPage(store);
const one = getTranscript(store, live, new SpeakerNameStore(db, SCHEMA));
const rename = renameTranscript(store);
const app = Fastify({ logger: false }).withTypeProvider<TypeBoxTypeProvider>();
// The same routes, schemas and paging helpers as the gateway's, so only the path between differs.
app.get(
  '/api/transcripts',
  { schema: { querystring: PageQuery, response: { 200: Type.Array(TranscriptListItemSchema) } } },
  async (req, reply) => {
    const paging = pageRequest(req.query);
    const page = await list({ owner_id: owner, ...paging });
    nextPageLink(req, reply, paging.limit, page.next);
    return page.items;
  },
);
app.get(
  '/api/transcripts/:id',
  { schema: { params: IdParamsSchema, response: { 200: TranscriptSchema } } },
  (req) => one({ owner_id: owner, id: req.params.id, raw: true }),
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
  (req) => rename({ owner_id: owner, id: req.params.id, name: req.body.name }),
);
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const ids = (await list({ owner_id: owner, limit: 100 })).items.map((t) => t.id);
process.stdout.write(
  `${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0, owner, ids })}\n`,
);
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => db.close())
    .finally(() => process.exit(0));
});
