import {
  assignTranscriptGroupRpc,
  audioConfigRpc,
  audioJobsStream,
  claimSummaryRpc,
  createAudioTranscriptRpc,
  createManualTranscriptRpc,
  deleteTranscriptRpc,
  getLlmSummaryRpc,
  getNotesRpc,
  getTranscriptRpc,
  GROUP_EVENTS_STREAM,
  groupDeletedEvent,
  groupEventsStream,
  groupMembersRpc,
  listActiveTranscriptsRpc,
  listTranscriptsPageRpc,
  putNotesRpc,
  renameTranscriptRpc,
  setGeneratedSummaryRpc,
  setSummaryStatusRpc,
  transcriptEventsStream,
  transcriptExistsRpc,
  updateTranscriptRpc,
  updateTranscriptSummaryRpc,
  usageEventsStream,
} from '@chronicler/contracts';
import { consume, defineService, packageVersion, serve } from '@chronicler/kit';
import { createSpeechProvider, SpeechConfigSchema } from '@chronicler/speech';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAudioWorker } from './consumers/transcribe-audio.ts';
import { TranscriptStore } from './db/store.ts';
import { assignGroup } from './handlers/assign-group.ts';
import { createAudio } from './handlers/create-audio.ts';
import { createManual } from './handlers/create-manual.ts';
import { deleteTranscript } from './handlers/delete-transcript.ts';
import { getTranscript } from './handlers/get-transcript.ts';
import { onGroupDeleted } from './handlers/group-deleted.ts';
import { listActive } from './handlers/list-active.ts';
import { listPage } from './handlers/list-page.ts';
import { getNotes, putNotes } from './handlers/notes.ts';
import { renameTranscript } from './handlers/rename-transcript.ts';
import { claimSummary, getLlmSummary, setGeneratedSummary, setSummaryStatus } from './handlers/summaries.ts';
import { updateSummary } from './handlers/update-summary.ts';
import { updateTranscript } from './handlers/update-transcript.ts';

export default defineService({
  name: 'transcript',
  version: packageVersion(import.meta.url),
  config: SpeechConfigSchema,
  migrationsDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations'),
  async start(ctx) {
    const store = new TranscriptStore(ctx.db, ctx.schema);
    const speech = createSpeechProvider(ctx.config);
    await ctx.bus.ensureStream(audioJobsStream);
    await ctx.bus.ensureStream(usageEventsStream);
    await ctx.bus.ensureStream(transcriptEventsStream);
    const subs = [
      serve(ctx.bus, groupMembersRpc, (req) => store.groupMembers(req.owner_id, req.group_ids)),
      serve(ctx.bus, getTranscriptRpc, getTranscript(store)),
      serve(ctx.bus, transcriptExistsRpc, async (req) => ({
        exists: (await store.getItem(req.owner_id, req.id)) !== null,
      })),
      serve(ctx.bus, createManualTranscriptRpc, createManual(store, ctx.bus)),
      serve(ctx.bus, updateTranscriptRpc, updateTranscript(store)),
      serve(ctx.bus, renameTranscriptRpc, renameTranscript(store)),
      serve(ctx.bus, assignTranscriptGroupRpc, assignGroup(store, ctx.bus)),
      serve(ctx.bus, deleteTranscriptRpc, deleteTranscript(store)),
      serve(ctx.bus, getNotesRpc, getNotes(store)),
      serve(ctx.bus, putNotesRpc, putNotes(store)),
      serve(ctx.bus, audioConfigRpc, () => ({ speech_provider: speech?.name ?? null })),
      serve(ctx.bus, createAudioTranscriptRpc, createAudio(store, ctx.bus, speech)),
      serve(ctx.bus, listTranscriptsPageRpc, listPage(store)),
      serve(ctx.bus, listActiveTranscriptsRpc, listActive(store)),
      serve(ctx.bus, updateTranscriptSummaryRpc, updateSummary(store)),
      serve(ctx.bus, claimSummaryRpc, claimSummary(store)),
      serve(ctx.bus, setSummaryStatusRpc, setSummaryStatus(store)),
      serve(ctx.bus, setGeneratedSummaryRpc, setGeneratedSummary(store)),
      serve(ctx.bus, getLlmSummaryRpc, getLlmSummary(store)),
    ];
    // The group service owns the stream; ensuring it here too (idempotent) lets either start first.
    await ctx.bus.ensureStream(groupEventsStream);
    const consumer = await consume(
      ctx.bus,
      {
        stream: GROUP_EVENTS_STREAM,
        durable: 'transcript-group-deleted',
      },
      groupDeletedEvent,
      onGroupDeleted(store, ctx.logger),
    );
    const audioWorker = await startAudioWorker({ bus: ctx.bus, store, provider: speech, logger: ctx.logger });
    return {
      async stop() {
        await audioWorker.stop();
        await consumer.stop();
        await Promise.all(subs.map((s) => s.unsubscribe()));
      },
    };
  },
});
