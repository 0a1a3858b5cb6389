import { listGroupsRpc } from '@chronicler/contracts';
import { defineService, packageVersion, serve } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GroupStore } from './db/store.ts';
import { listGroups } from './handlers/list-groups.ts';

export default defineService({
  name: 'group',
  version: packageVersion(import.meta.url),
  config: Type.Object({}),
  migrationsDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations'),
  async start(ctx) {
    const store = new GroupStore(ctx.db, ctx.schema);
    const subs = [serve(ctx.bus, listGroupsRpc, listGroups(store, ctx.bus))];
    return {
      async stop() {
        await Promise.all(subs.map((s) => s.unsubscribe()));
      },
    };
  },
});
