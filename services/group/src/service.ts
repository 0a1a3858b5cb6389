import {
  createGroupRpc,
  deleteGroupRpc,
  getGroupRpc,
  groupEventsStream,
  groupExistsRpc,
  listGroupsRpc,
  setGroupGeneratedSummaryRpc,
  updateGroupRpc,
} from '@chronicler/contracts';
import { defineService, packageVersion, serve } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GroupStore } from './db/store.ts';
import { createGroup } from './handlers/create-group.ts';
import { deleteGroup } from './handlers/delete-group.ts';
import { getGroup } from './handlers/get-group.ts';
import { groupExists } from './handlers/group-exists.ts';
import { listGroups } from './handlers/list-groups.ts';
import { setGeneratedSummary } from './handlers/set-generated-summary.ts';
import { updateGroup } from './handlers/update-group.ts';

export default defineService({
  name: 'group',
  version: packageVersion(import.meta.url),
  config: Type.Object({}),
  migrationsDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations'),
  async start(ctx) {
    const store = new GroupStore(ctx.db, ctx.schema);
    // The durable stream of group events (evt.group.>), de-duplicated by msgId.
    await ctx.bus.ensureStream(groupEventsStream);
    const subs = [
      serve(ctx.bus, listGroupsRpc, listGroups(store, ctx.bus)),
      serve(ctx.bus, getGroupRpc, getGroup(store, ctx.bus)),
      serve(ctx.bus, createGroupRpc, createGroup(store)),
      serve(ctx.bus, updateGroupRpc, updateGroup(store, ctx.bus)),
      serve(ctx.bus, deleteGroupRpc, deleteGroup(store, ctx.bus)),
      serve(ctx.bus, groupExistsRpc, groupExists(store)),
      serve(ctx.bus, setGroupGeneratedSummaryRpc, setGeneratedSummary(store, ctx.bus)),
    ];
    return {
      async stop() {
        await Promise.all(subs.map((s) => s.unsubscribe()));
      },
    };
  },
});
