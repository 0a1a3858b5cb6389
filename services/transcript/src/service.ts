import {
  assignTranscriptGroupRpc,
  audioConfigRpc,
  audioJobsStream,
  claimSummaryRpc,
  contentVersionsRpc,
  createAudioTranscriptRpc,
  transcribeNowRpc,
  createManualTranscriptRpc,
  AUDIO_BLOB_BUCKET,
  AUDIO_RETENTION_MS,
  deleteTranscriptRpc,
  editLineRpc,
  exportGroupRpc,
  exportTranscriptRpc,
  getSpeakersRpc,
  groupSpotlightRpc,
  sessionSpotlightRpc,
  lineEditsRpc,
  putSpeakersRpc,
  retryAudioTranscriptionRpc,
  searchTranscriptsRpc,
  passagesRpc,
  sessionAudioRpc,
  keepTrackRpc,
  recordingFileRpc,
  recordingLinksRpc,
  memberForgetRpc,
  memberRecordedRpc,
  claimRecapRpc,
  guildRecapsRpc,
  recapTargetRpc,
  audioSettingsRpc,
  audioUsageRpc,
  createShareRpc,
  listSharesRpc,
  resolveShareRpc,
  revokeShareRpc,
  getLlmSummaryRpc,
  getNotesRpc,
  getTranscriptIfChangedRpc,
  getTranscriptRpc,
  GROUP_EVENTS_STREAM,
  groupDeletedEvent,
  groupEventsStream,
  groupMembersRpc,
  groupNamesRpc,
  listActiveTranscriptsRpc,
  liveJoinRpc,
  liveStream,
  listTranscriptsPageIfChangedRpc,
  listTranscriptsPageRpc,
  putNotesRpc,
  renameTranscriptRpc,
  setGeneratedSummaryRpc,
  setSummaryStatusRpc,
  transcriptAdminCountsRpc,
  transcriptEventsStream,
  transcriptExistsRpc,
  TRANSCRIPT_MAX,
  updateTranscriptRpc,
  updateTranscriptSummaryRpc,
  usageEventsStream,
} from '@chronicler/contracts';
import { consume, defineService, EventOutbox, packageVersion, serve } from '@chronicler/kit';
import {
  createSpeechProvider,
  describeSpeech,
  SpeechConfigSchema,
  speechConfigProblems,
} from '@chronicler/speech';
import { Type } from '@sinclair/typebox';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLiveSessionsGauge } from './consumers/live-sessions-gauge.ts';
import { LiveGapConfigSchema, startGapSweep, startLiveConsumer } from './consumers/live-sessions.ts';
import { StaleSessionsConfigSchema, startStaleSessionSweep } from './consumers/stale-sessions.ts';
import { startAbandonedUploadSweep } from './consumers/abandoned-uploads.ts';
import { startAudioWorker } from './consumers/transcribe-audio.ts';
import { LineEditStore } from './db/line-edits.ts';
import { LiveStore } from './db/live-store.ts';
import { SpeakerNameStore } from './db/speaker-names.ts';
import { startAudioRetentionSweep } from './consumers/audio-retention.ts';
import { transcribeNow } from './handlers/transcribe-now.ts';
import { AudioStore } from './db/audio-store.ts';
import { SearchStore } from './db/search-store.ts';
import { PassageStore } from './db/passage-store.ts';
import { ShareStore } from './db/share-store.ts';
import { TranscriptStore } from './db/store.ts';
import { VocabularyStore } from './db/vocabulary.ts';
import { adminCounts } from './handlers/admin-counts.ts';
import { assignGroup } from './handlers/assign-group.ts';
import { createAudio } from './handlers/create-audio.ts';
import { contentVersions } from './handlers/content-versions.ts';
import { createManual } from './handlers/create-manual.ts';
import { deleteTranscript } from './handlers/delete-transcript.ts';
import { exportGroup, exportTranscript } from './handlers/export.ts';
import { editLine, listLineEdits } from './handlers/line-edits.ts';
import { getSpeakers, putSpeakers } from './handlers/speakers.ts';
import { getGroupSpotlight, getSessionSpotlight } from './handlers/spotlight.ts';
import { retryAudio } from './handlers/retry-audio.ts';
import { getTranscript, getTranscriptIfChanged } from './handlers/get-transcript.ts';
import { onGroupDeleted } from './handlers/group-deleted.ts';
import { groupNames } from './handlers/group-names.ts';
import { listActive } from './handlers/list-active.ts';
import { liveJoin } from './handlers/live-join.ts';
import { listPage, listPageIfChanged } from './handlers/list-page.ts';
import { getNotes, putNotes } from './handlers/notes.ts';
import { renameTranscript } from './handlers/rename-transcript.ts';
import { search } from './handlers/search.ts';
import { passages } from './handlers/passages.ts';
import { keepTrack, sessionAudio } from './handlers/session-audio.ts';
import { RecordingStore } from './db/recordings.ts';
import { recordingFile, recordingLinks } from './handlers/recordings.ts';
import { MemberDataStore } from './db/member-data.ts';
import { memberForget, memberRecorded } from './handlers/member-data.ts';
import { RecapStore } from './db/recap-store.ts';
import { announcingSummary, claimRecap, guildRecaps, recapTarget } from './handlers/recaps.ts';
import { audioSettings } from './handlers/audio-settings.ts';
import { createShare, listShares, resolveShare, revokeShare } from './handlers/shares.ts';
import { claimSummary, getLlmSummary, setGeneratedSummary, setSummaryStatus } from './handlers/summaries.ts';
import { updateSummary } from './handlers/update-summary.ts';
import { updateTranscript } from './handlers/update-transcript.ts';

export default defineService({
  name: 'transcript',
  version: packageVersion(import.meta.url),
  // The speech provider of uploaded recordings, when a live session whose bot vanished is
  // ended, and when a gap in its finals is closed as lost.
  config: Type.Composite([SpeechConfigSchema, StaleSessionsConfigSchema, LiveGapConfigSchema]),
  checkConfig: speechConfigProblems,
  migrationsDir: path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../migrations'),
  async start(ctx) {
    const store = new TranscriptStore(ctx.db, ctx.schema);
    const shares = new ShareStore(ctx.db, ctx.schema);
    const audio = new AudioStore(ctx.db, ctx.schema);
    const recordings = new RecordingStore(ctx.db, ctx.schema);
    const retention = startAudioRetentionSweep({ bus: ctx.bus, coord: ctx.coord, audio, logger: ctx.logger });
    // Events committed with the change they announce, relayed to the bus after the commit.
    const outbox = new EventOutbox({ db: ctx.db, schema: ctx.schema, bus: ctx.bus, logger: ctx.logger });
    const live = new LiveStore(ctx.db, ctx.schema, outbox);
    const names = new SpeakerNameStore(ctx.db, ctx.schema);
    const members = new MemberDataStore(ctx.db, ctx.schema, outbox);
    const recaps = new RecapStore(ctx.db, ctx.schema);
    const edits = new LineEditStore(ctx.db, ctx.schema, TRANSCRIPT_MAX);
    const exportDeps = { store, live, edits, names, bus: ctx.bus };
    const spotlightDeps = { store, live, names, bus: ctx.bus, logger: ctx.logger };
    const speech = createSpeechProvider(ctx.config);
    // The operator's one line about speech-to-text: what transcribes, or what turns it on.
    if (speech) ctx.logger.info({ speechProvider: speech.name }, describeSpeech(ctx.config));
    else ctx.logger.warn({ speechProvider: null }, describeSpeech(ctx.config));
    await ctx.bus.ensureStream(audioJobsStream);
    // A failed transcription keeps its recording for another try, within this retention.
    await ctx.bus.blobs.expireAfter(AUDIO_BLOB_BUCKET, AUDIO_RETENTION_MS);
    // What an upload cut short by a crash left there goes now and within twenty minutes, not in 7 days.
    const abandonedUploads = await startAbandonedUploadSweep(ctx.bus, ctx.logger, {
      ...(ctx.platform.mode === 'embedded' ? { startIdleMs: 0 } : {}),
    });
    await ctx.bus.ensureStream(usageEventsStream);
    await ctx.bus.ensureStream(transcriptEventsStream);
    await ctx.bus.ensureStream(liveStream);
    outbox.start();
    const subs = [
      serve(ctx.bus, groupMembersRpc, (req) => store.groupMembers(req.owner_id, req.group_ids)),
      serve(ctx.bus, getTranscriptRpc, getTranscript(store, live, names)),
      serve(ctx.bus, getTranscriptIfChangedRpc, getTranscriptIfChanged(store, live)),
      serve(ctx.bus, editLineRpc, editLine(edits, names)),
      serve(ctx.bus, lineEditsRpc, listLineEdits(store, live, edits, names)),
      serve(ctx.bus, getSpeakersRpc, getSpeakers(store, live, names, ctx.bus, ctx.logger)),
      serve(ctx.bus, putSpeakersRpc, putSpeakers(store, live, names, ctx.bus, ctx.logger)),
      serve(ctx.bus, sessionSpotlightRpc, getSessionSpotlight(spotlightDeps)),
      serve(ctx.bus, groupSpotlightRpc, getGroupSpotlight(spotlightDeps)),
      serve(ctx.bus, exportTranscriptRpc, exportTranscript(exportDeps)),
      serve(ctx.bus, exportGroupRpc, exportGroup(exportDeps)),
      serve(ctx.bus, transcriptExistsRpc, async (req) => ({
        exists: (await store.getItem(req.owner_id, req.id)) !== null,
      })),
      serve(ctx.bus, createManualTranscriptRpc, createManual(store, ctx.bus, outbox)),
      serve(ctx.bus, updateTranscriptRpc, updateTranscript(store)),
      serve(ctx.bus, renameTranscriptRpc, renameTranscript(store)),
      serve(ctx.bus, assignTranscriptGroupRpc, assignGroup(store, ctx.bus)),
      serve(ctx.bus, deleteTranscriptRpc, deleteTranscript(store, ctx.bus, ctx.logger, audio)),
      serve(ctx.bus, retryAudioTranscriptionRpc, retryAudio(store, ctx.bus, outbox, speech)),
      serve(ctx.bus, getNotesRpc, getNotes(store)),
      serve(ctx.bus, putNotesRpc, putNotes(store)),
      serve(ctx.bus, audioConfigRpc, () => ({ speech_provider: speech?.name ?? null })),
      serve(
        ctx.bus,
        createAudioTranscriptRpc,
        createAudio(store, ctx.bus, outbox, speech, { audio, logger: ctx.logger }),
      ),
      serve(ctx.bus, transcribeNowRpc, transcribeNow(store, audio, ctx.bus, outbox, speech)),
      serve(ctx.bus, listTranscriptsPageRpc, listPage(store)),
      serve(ctx.bus, listTranscriptsPageIfChangedRpc, listPageIfChanged(store)),
      serve(ctx.bus, listActiveTranscriptsRpc, listActive(store, live)),
      serve(ctx.bus, liveJoinRpc, liveJoin(live)),
      serve(ctx.bus, updateTranscriptSummaryRpc, updateSummary(store)),
      serve(ctx.bus, claimSummaryRpc, claimSummary(store)),
      serve(ctx.bus, setSummaryStatusRpc, setSummaryStatus(store)),
      serve(
        ctx.bus,
        setGeneratedSummaryRpc,
        announcingSummary(setGeneratedSummary(store), ctx.bus, ctx.logger),
      ),
      serve(ctx.bus, getLlmSummaryRpc, getLlmSummary(store)),
      serve(ctx.bus, groupNamesRpc, groupNames(new VocabularyStore(ctx.db, ctx.schema))),
      serve(ctx.bus, transcriptAdminCountsRpc, adminCounts(ctx.db, ctx.schema)),
      serve(ctx.bus, searchTranscriptsRpc, search(new SearchStore(ctx.db, ctx.schema))),
      serve(ctx.bus, contentVersionsRpc, contentVersions(ctx.db, ctx.schema)),
      serve(ctx.bus, passagesRpc, passages(new PassageStore(ctx.db, ctx.schema))),
      serve(ctx.bus, createShareRpc, createShare(shares, store)),
      serve(ctx.bus, listSharesRpc, listShares(shares, store)),
      serve(ctx.bus, revokeShareRpc, revokeShare(shares)),
      serve(ctx.bus, resolveShareRpc, resolveShare(shares)),
      serve(ctx.bus, sessionAudioRpc, sessionAudio(audio)),
      serve(ctx.bus, keepTrackRpc, keepTrack(audio, members, ctx.bus, ctx.logger)),
      serve(ctx.bus, recordingLinksRpc, recordingLinks(recordings)),
      serve(ctx.bus, recordingFileRpc, recordingFile(recordings)),
      serve(ctx.bus, memberRecordedRpc, memberRecorded(members)),
      serve(ctx.bus, memberForgetRpc, memberForget(members, ctx.bus, ctx.logger)),
      serve(ctx.bus, recapTargetRpc, recapTarget(recaps)),
      serve(ctx.bus, claimRecapRpc, claimRecap(recaps)),
      serve(ctx.bus, guildRecapsRpc, guildRecaps(recaps)),
      serve(ctx.bus, audioSettingsRpc, audioSettings(audio, retention.sweep)),
      serve(ctx.bus, audioUsageRpc, () => audio.usage()),
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
      onGroupDeleted(store, shares, ctx.logger),
    );
    const audioWorker = await startAudioWorker({
      bus: ctx.bus,
      outbox,
      store,
      provider: speech,
      logger: ctx.logger,
      audio,
    });
    const liveConsumer = await startLiveConsumer({ bus: ctx.bus, outbox, store: live, logger: ctx.logger });
    const staleSweep = startStaleSessionSweep(ctx);
    const gapSweep = startGapSweep({ ...ctx, outbox, store: live });
    const sessionsGauge = startLiveSessionsGauge(live, ctx.logger);
    return {
      async stop() {
        sessionsGauge.stop();
        retention.stop();
        staleSweep.stop();
        gapSweep.stop();
        abandonedUploads.stop();
        await liveConsumer.stop();
        await audioWorker.stop();
        await consumer.stop();
        await Promise.all(subs.map((s) => s.unsubscribe()));
        await outbox.stop();
      },
    };
  },
});
