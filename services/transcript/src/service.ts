import { groupMembersRpc, listTranscriptsRpc } from '@chronicler/contracts';
import { defineService, packageVersion, serve } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TranscriptStore } from './db/store.ts';

export default defineService({
  name: 'transcript',
  version: packageVersion(import.meta.url),
  config: Type.Object({}),
  migrationsDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations'),
  async start(ctx) {
    const store = new TranscriptStore(ctx.db, ctx.schema);
    const subs = [
      serve(ctx.bus, listTranscriptsRpc, (req) => store.list(req.owner_id)),
      serve(ctx.bus, groupMembersRpc, (req) => store.groupMembers(req.owner_id)),
    ];
    return {
      async stop() {
        await Promise.all(subs.map((s) => s.unsubscribe()));
      },
    };
  },
});
