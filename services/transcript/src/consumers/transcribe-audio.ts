import {
  AUDIO_BLOB_BUCKET,
  AUDIO_JOB_SUBJECT,
  AUDIO_JOBS_STREAM,
  AudioJobSchema,
  SESSION_AUDIO_BUCKET,
  formatTranscriptLine,
  groupKeytermsRpc,
  TRANSCRIPT_MAX,
  transcriptionRecordedEvent,
  type AudioJob,
  type AudioUploadJob,
  type TranscriptionRecorded,
} from '@chronicler/contracts';
import {
  call,
  consume,
  type Bus,
  type Consumer,
  type DurableContext,
  type EventOutbox,
  type Logger,
  type OutboxMessage,
} from '@chronicler/kit';
import {
  MIME_BY_FORMAT,
  SpeechError,
  type AudioFormat,
  type SpeechLine,
  type SpeechProvider,
  type SpeechResult,
  type TranscribeRequest,
} from '@chronicler/speech';
import type { AudioStore } from '../db/audio-store.ts';
import { keepRecording } from './keep-recording.ts';
import type { LineTimes, TranscriptStore } from '../db/store.ts';
import { previewOf } from '../validation.ts';
import { readyForSummary } from '../handlers/summaries.ts';

/** Deliveries of one job before it is given up as failed (the last one marks it failed). */
const AUDIO_JOB_MAX_DELIVER = 5;
/** Jobs transcribed at once by one worker process. */
const CONCURRENCY = 2;
/** The ack deadline; a running job renews it well before (provider calls take minutes). */
const ACK_WAIT_MS = 60_000;

/** A line as stored: a provider's speaker number, or the name of the speaker whose track it is. */
type LabelledLine = Omit<SpeechLine, 'speaker'> & { speaker: string | number };

const ms = (seconds: number) => Math.round(seconds * 1000) / 1000;

/**
 * Speaker-labelled lines in the stored form, cut at a line boundary to the transcript limit,
 * and each kept line's times to the millisecond (the stored form keeps whole seconds).
 */
function transcriptContent(lines: LabelledLine[]): { content: string; lineTimes: LineTimes } {
  let out = '';
  const lineTimes: LineTimes = [];
  for (const l of lines) {
    const line = formatTranscriptLine({ seconds: l.seconds, speaker: l.speaker, text: l.text });
    const next = out ? `${out}\n${line}` : line;
    if (next.length > TRANSCRIPT_MAX) break;
    out = next;
    lineTimes.push([ms(l.seconds), l.end === undefined ? null : ms(l.end)]);
  }
  return { content: out, lineTimes };
}

/** Whisper reads at most 224 tokens of prompt: the campaign's first names are enough. */
const PROMPT_MAX_CHARS = 600;

class Stopping extends Error {
  constructor() {
    super('The worker is stopping; the job is handed back to the queue');
  }
}

/**
 * The audio worker: transcribes each queued recording with the configured provider. The
 * session moves queued -> processing -> completed in one final write (content, preview,
 * seconds), or -> failed with the reason and no content when the provider refuses for good
 * or the last delivery fails. The recording's blob is deleted once transcribed; a failed
 * session keeps it, so the user can try again (svc.transcript.retry-audio) until the session
 * is deleted or the upload bucket's retention ends. A redelivered job of a finished session
 * does nothing; a deleted session's job only drops its blob.
 */
export async function startAudioWorker(opts: {
  bus: Bus;
  outbox: EventOutbox;
  store: TranscriptStore;
  provider: SpeechProvider | null;
  logger: Logger;
  audio: AudioStore;
}): Promise<Consumer> {
  const { bus, outbox, store, provider, logger } = opts;
  const stopping = new AbortController();

  // A tracks job has no upload of its own: the speakers' tracks stay kept with the session.
  const dropBlob = async (job: AudioJob) =>
    !('blob' in job) ||
    bus.blobs.delete(AUDIO_BLOB_BUCKET, job.blob).catch((err: unknown) => {
      logger.warn({ err, transcriptId: job.transcript_id }, 'could not delete an audio upload');
      return false;
    });

  function usageOf(job: AudioJob, seconds: number, providerName: string): OutboxMessage {
    const usage: TranscriptionRecorded = {
      record_id: `audio:${job.transcript_id}`,
      owner_id: job.owner_id,
      transcript_id: job.transcript_id,
      source: 'audio',
      provider: providerName,
      seconds,
      recorded_at: new Date().toISOString(),
    };
    return { subject: transcriptionRecordedEvent.subject, payload: usage, msgId: usage.record_id };
  }

  /**
   * The names of the session's campaign (its group's vocabulary), for providers that take a
   * hint. Best effort: without the group service the recording is transcribed without them.
   */
  async function campaignPrompt(job: AudioJob): Promise<string | undefined> {
    const item = await store.getItem(job.owner_id, job.transcript_id);
    if (!item?.group_id) return undefined;
    const { keyterms } = await call(
      bus,
      groupKeytermsRpc,
      { owner_id: job.owner_id, group_id: item.group_id },
      { timeoutMs: 2000 },
    ).catch(() => ({ keyterms: [] as string[] }));
    let prompt = '';
    for (const term of keyterms) {
      const next = prompt ? `${prompt}, ${term}` : term;
      if (next.length > PROMPT_MAX_CHARS) break;
      prompt = next;
    }
    return prompt || undefined;
  }

  type Common = Pick<TranscribeRequest, 'prompt' | 'signal'>;
  type Transcribed = {
    durationSeconds: number;
    /** Seconds of audio sent to the provider (its usage): each track's own for a tracks job. */
    billedSeconds: number;
    lines: LabelledLine[];
  };

  async function transcribeUpload(
    job: AudioUploadJob,
    resumeJobId: string,
    common: Common,
  ): Promise<Transcribed> {
    const result: SpeechResult = await provider!.transcribe({
      ...common,
      openAudio: async () => {
        const audio = await bus.blobs.get(AUDIO_BLOB_BUCKET, job.blob);
        // The upload is gone (deleted by an earlier, finished attempt, or past its retention).
        if (!audio) {
          await store.forgetAudio(job.owner_id, job.transcript_id);
          throw new SpeechError('the uploaded recording is no longer available', false);
        }
        return audio;
      },
      size: job.size,
      contentType: MIME_BY_FORMAT[job.format as AudioFormat] ?? 'application/octet-stream',
      resumeJobId: resumeJobId || null,
      onJobId: async (jobId) => {
        await store.markAudioProcessing(job.owner_id, job.transcript_id, jobId);
      },
    });
    return { ...result, billedSeconds: result.durationSeconds };
  }

  /**
   * Each speaker's kept track on its own (one voice each, on the session's clock): its lines are
   * that speaker's, whatever the provider's diarization says, merged by time. A redelivery
   * transcribes every track again (no provider job is resumed across tracks).
   */
  async function transcribeTracks(job: AudioJob, common: Common): Promise<Transcribed> {
    const tracks = await opts.audio.tracksOf(job.owner_id, job.transcript_id);
    if (tracks.length === 0) throw new SpeechError('the recording is no longer stored', false);
    let durationSeconds = 0;
    let billedSeconds = 0;
    const keyed: (LabelledLine & { order: number; i: number })[] = [];
    for (const [order, track] of tracks.entries()) {
      const result = await provider!.transcribe({
        ...common,
        openAudio: async () => {
          const audio = await bus.blobs.get(SESSION_AUDIO_BUCKET, track.blob);
          if (!audio) throw new SpeechError(`the recording of ${track.speaker} is no longer stored`, false);
          return audio;
        },
        size: track.size,
        contentType: MIME_BY_FORMAT[track.format as AudioFormat] ?? 'application/octet-stream',
      });
      durationSeconds = Math.max(durationSeconds, result.durationSeconds);
      billedSeconds += result.durationSeconds;
      for (const [i, l] of result.lines.entries()) keyed.push({ ...l, speaker: track.speaker, order, i });
    }
    // By time; a tie keeps the speakers' order and each track's own order.
    keyed.sort((a, b) => a.seconds - b.seconds || a.order - b.order || a.i - b.i);
    return {
      durationSeconds,
      billedSeconds,
      lines: keyed.map(({ order: _order, i: _i, ...line }) => line),
    };
  }

  async function handle(job: AudioJob, ctx: DurableContext): Promise<void> {
    const log = logger.child({ transcriptId: job.transcript_id, delivery: ctx.deliveryCount });
    const state = await store.audioJobState(job.owner_id, job.transcript_id);
    if (!state) {
      log.info('audio session was deleted before its transcription; dropping the upload');
      await dropBlob(job);
      return;
    }
    if (state.status === 'completed') {
      await dropBlob(job);
      return;
    }
    // Failed: the recording stays for another try.
    if (state.status === 'failed') return;
    if (!provider) {
      await store.failAudio(
        job.owner_id,
        job.transcript_id,
        'Transcription failed: no speech-to-text provider is configured on this server.',
      );
      return;
    }
    await store.markAudioProcessing(job.owner_id, job.transcript_id);
    const heartbeat = setInterval(() => ctx.working(), ACK_WAIT_MS / 4);
    try {
      const prompt = await campaignPrompt(job);
      const common = { ...(prompt ? { prompt } : {}), signal: stopping.signal };
      const result =
        'blob' in job
          ? await transcribeUpload(job, state.jobId, common)
          : await transcribeTracks(job, common);
      const { content, lineTimes } = transcriptContent(result.lines);
      // The transcript, its usage record and its summary request commit together (the
      // outbox relays the events), so a bus failing at that moment loses neither.
      const completed = await store.completeAudio(
        job.owner_id,
        job.transcript_id,
        {
          content,
          preview: previewOf(content),
          audioSeconds: result.durationSeconds,
          provider: provider.name,
          lineTimes,
        },
        (tx, item) =>
          outbox.add(
            tx,
            usageOf(job, result.billedSeconds, provider.name),
            ...readyForSummary(item, job.owner_id),
          ),
      );
      if (completed) {
        outbox.wake();
        log.info({ seconds: result.durationSeconds, lines: result.lines.length }, 'audio transcribed');
      }
      // The recording stays with its session for playing; the upload goes only once it is kept.
      if ('blob' in job && (await keepRecording({ bus, audio: opts.audio, logger: log }, job)))
        await dropBlob(job);
    } catch (err) {
      if (stopping.signal.aborted) throw new Stopping();
      const speech = err instanceof SpeechError ? err : null;
      const retry = (speech ? speech.retryable : true) && ctx.deliveryCount < AUDIO_JOB_MAX_DELIVER;
      if (retry) {
        log.warn({ err }, 'audio transcription failed; it will be tried again');
        throw err;
      }
      const reason = speech?.message ?? 'an unexpected error occurred';
      log.warn({ err }, 'audio transcription failed for good; the recording is kept for another try');
      await store.failAudio(job.owner_id, job.transcript_id, `Transcription failed: ${reason}`);
    } finally {
      clearInterval(heartbeat);
    }
  }

  const consumer = await consume(
    bus,
    {
      stream: AUDIO_JOBS_STREAM,
      durable: 'transcript-audio-jobs',
      ackWaitMs: ACK_WAIT_MS,
      maxDeliver: AUDIO_JOB_MAX_DELIVER + 1,
      concurrency: CONCURRENCY,
      backoffMs: 1000,
    },
    { subject: AUDIO_JOB_SUBJECT, payload: AudioJobSchema },
    handle,
  );
  return {
    async stop() {
      // Jobs in flight are cancelled and handed back; a restarted worker picks them up
      // (AssemblyAI jobs resume polling the provider's job).
      stopping.abort(new Stopping());
      await consumer.stop();
    },
  };
}
