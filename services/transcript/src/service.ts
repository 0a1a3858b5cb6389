import {
  assignTranscriptGroupRpc,
  createManualTranscriptRpc,
  deleteTranscriptRpc,
  getNotesRpc,
  getTranscriptRpc,
  GROUP_EVENTS_STREAM,
  groupDeletedEvent,
  groupEventsStream,
  groupMembersRpc,
  listTranscriptsRpc,
  putNotesRpc,
  renameTranscriptRpc,
  updateTranscriptRpc,
} from '@chronicler/contracts';
import { defineService, packageVersion, serve } from '@chronicler/kit';
import { Type } from '@sinclair/typebox';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TranscriptStore } from './db/store.ts';
import { assignGroup } from './handlers/assign-group.ts';
import { createManual } from './handlers/create-manual.ts';
import { deleteTranscript } from './handlers/delete-transcript.ts';
import { getTranscript } from './handlers/get-transcript.ts';
import { onGroupDeleted } from './handlers/group-deleted.ts';
import { getNotes, putNotes } from './handlers/notes.ts';
import { renameTranscript } from './handlers/rename-transcript.ts';
import { updateTranscript } from './handlers/update-transcript.ts';

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
      serve(ctx.bus, getTranscriptRpc, getTranscript(store, ctx.bus)),
      serve(ctx.bus, createManualTranscriptRpc, createManual(store, ctx.bus)),
      serve(ctx.bus, updateTranscriptRpc, updateTranscript(store, ctx.bus)),
      serve(ctx.bus, renameTranscriptRpc, renameTranscript(store)),
      serve(ctx.bus, assignTranscriptGroupRpc, assignGroup(store, ctx.bus)),
      serve(ctx.bus, deleteTranscriptRpc, deleteTranscript(store)),
      serve(ctx.bus, getNotesRpc, getNotes(store)),
      serve(ctx.bus, putNotesRpc, putNotes(store)),
    ];
    // The group service owns the stream; ensuring it here too (idempotent) lets either start first.
    await ctx.bus.ensureStream(groupEventsStream);
    const consumer = await ctx.bus.consume(
      {
        stream: GROUP_EVENTS_STREAM,
        durable: 'transcript-group-deleted',
        filterSubject: groupDeletedEvent.subject,
      },
      onGroupDeleted(store, ctx.logger),
    );
    return {
      async stop() {
        await consumer.stop();
        await Promise.all(subs.map((s) => s.unsubscribe()));
      },
    };
  },
});
