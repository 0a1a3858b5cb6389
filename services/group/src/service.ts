import {
  applyCodexRpc,
  getCodexRpc,
  mergeCodexEntriesRpc,
  patchCodexEntryRpc,
  createGroupRpc,
  deleteGroupRpc,
  findGroupsRpc,
  getGroupRpc,
  getGroupCharactersRpc,
  putGroupCharactersRpc,
  getGroupVocabularyRpc,
  groupKeytermsRpc,
  putGroupVocabularyRpc,
  groupEventsStream,
  groupExistsRpc,
  listGroupsRpc,
  setGroupGeneratedSummaryRpc,
  updateGroupRpc,
  getServerSettingsRpc,
  putServerSettingsRpc,
  memberConsentsRpc,
  setMemberConsentRpc,
  restoreSummaryRpc,
  summaryVersionsRpc,
} from '@chronicler/contracts';
import { defineService, EventOutbox, packageVersion, serve } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CharacterStore } from './db/characters-store.ts';
import { CodexStore } from './db/codex-store.ts';
import { GroupStore } from './db/store.ts';
import {
  getServerSettings,
  memberConsents,
  putServerSettings,
  setMemberConsent,
} from './discord/settings-handlers.ts';
import { ServerSettingsStore } from './discord/settings-store.ts';
import { getCharacters, putCharacters } from './handlers/characters.ts';
import { applyCodexFindings, getCodex, mergeCodexEntries, patchCodexEntry } from './handlers/codex.ts';
import { createGroup } from './handlers/create-group.ts';
import { deleteGroup } from './handlers/delete-group.ts';
import { findGroups } from './handlers/find-groups.ts';
import { getGroup } from './handlers/get-group.ts';
import { groupExists } from './handlers/group-exists.ts';
import { groupKeyterms } from './handlers/keyterms.ts';
import { listGroups } from './handlers/list-groups.ts';
import { setGeneratedSummary } from './handlers/set-generated-summary.ts';
import { restoreSummary, summaryVersions } from './handlers/summary-versions.ts';
import { updateGroup } from './handlers/update-group.ts';
import { getVocabulary, putVocabulary } from './handlers/vocabulary.ts';

export default defineService({
  name: 'group',
  version: packageVersion(import.meta.url),
  config: Type.Object({}),
  migrationsDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations'),
  async start(ctx) {
    const store = new GroupStore(ctx.db, ctx.schema);
    // Events committed with their change, relayed to the bus after the commit.
    const outbox = new EventOutbox({ db: ctx.db, schema: ctx.schema, bus: ctx.bus, logger: ctx.logger });
    const characters = new CharacterStore(ctx.db, ctx.schema);
    const servers = new ServerSettingsStore(ctx.db, ctx.schema);
    const codex = new CodexStore(ctx.db, ctx.schema);
    // The durable stream of group events (evt.group.>), de-duplicated by msgId.
    await ctx.bus.ensureStream(groupEventsStream);
    outbox.start();
    const subs = [
      serve(ctx.bus, listGroupsRpc, listGroups(store, ctx.bus)),
      serve(ctx.bus, getGroupRpc, getGroup(store, ctx.bus)),
      serve(ctx.bus, createGroupRpc, createGroup(store)),
      serve(ctx.bus, updateGroupRpc, updateGroup(store, ctx.bus)),
      serve(ctx.bus, deleteGroupRpc, deleteGroup(store, outbox)),
      serve(ctx.bus, groupExistsRpc, groupExists(store)),
      serve(ctx.bus, findGroupsRpc, findGroups(ctx.db, ctx.schema)),
      serve(ctx.bus, setGroupGeneratedSummaryRpc, setGeneratedSummary(store, ctx.bus)),
      serve(ctx.bus, summaryVersionsRpc, summaryVersions(store)),
      serve(ctx.bus, restoreSummaryRpc, restoreSummary(store, ctx.bus)),
      serve(ctx.bus, getGroupVocabularyRpc, getVocabulary(store, ctx.bus, ctx.coord.cache)),
      serve(ctx.bus, putGroupVocabularyRpc, putVocabulary(store, ctx.bus, ctx.coord.cache)),
      serve(ctx.bus, groupKeytermsRpc, groupKeyterms(store, ctx.bus, ctx.coord.cache)),
      serve(ctx.bus, getGroupCharactersRpc, getCharacters(characters, ctx.bus)),
      serve(ctx.bus, putGroupCharactersRpc, putCharacters(characters, ctx.bus)),
      serve(ctx.bus, getServerSettingsRpc, getServerSettings(servers)),
      serve(ctx.bus, putServerSettingsRpc, putServerSettings(servers, store, ctx.bus, ctx.logger)),
      serve(ctx.bus, memberConsentsRpc, memberConsents(servers)),
      serve(ctx.bus, setMemberConsentRpc, setMemberConsent(servers)),
      serve(ctx.bus, getCodexRpc, getCodex(codex)),
      serve(ctx.bus, patchCodexEntryRpc, patchCodexEntry(codex)),
      serve(ctx.bus, mergeCodexEntriesRpc, mergeCodexEntries(codex)),
      serve(ctx.bus, applyCodexRpc, applyCodexFindings(codex)),
    ];
    return {
      async stop() {
        await Promise.all(subs.map((s) => s.unsubscribe()));
        await outbox.stop();
      },
    };
  },
});
