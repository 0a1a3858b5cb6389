import { FileService, TranscriptService, type Transcript } from 'assemblyai';
import { abortError, retryableStatus, SpeechError, type SpeechLine, type SpeechProvider } from './types.ts';

export interface AssemblyAiOptions {
  apiKey: string;
  /** Base URL override; default AssemblyAI's API. */
  baseUrl?: string;
  pollIntervalMs: number;
  timeoutMs: number;
}

/** The longest a job is waited for before the attempt gives up (the queue tries again, resuming it). */
const POLLING_TIMEOUT_MS = 3 * 60 * 60 * 1000;

/**
 * The SDK's services throw a bare Error carrying only the body's text and have no timeout.
 * These subclasses keep the SDK's requests (paths, headers, bodies, polling) and add what a
 * worker needs: a deadline per call, cancellation, and the HTTP status on failures.
 */
interface CallLimits {
  timeoutMs: number;
  signal?: AbortSignal;
}

async function limitedFetch(
  send: (input: string, init?: RequestInit) => Promise<Response>,
  limits: CallLimits,
  input: string,
  init?: RequestInit,
): Promise<Response> {
  const timeout = AbortSignal.timeout(limits.timeoutMs);
  const signal = limits.signal ? AbortSignal.any([limits.signal, timeout]) : timeout;
  let res: Response;
  try {
    res = await send(input, { ...init, signal });
  } catch (err) {
    if (limits.signal?.aborted) throw abortError(limits.signal);
    if (timeout.aborted) throw new SpeechError('AssemblyAI did not answer in time', true);
    throw new SpeechError(`AssemblyAI could not be reached: ${(err as Error)?.message ?? String(err)}`, true);
  }
  if (res.status >= 400) {
    const text = await res.text().catch(() => '');
    let detail = text.trim() || res.statusText || 'no details';
    try {
      const json = JSON.parse(text) as { error?: unknown };
      if (typeof json.error === 'string' && json.error) detail = json.error;
    } catch {
      // not JSON: the text itself is the detail
    }
    throw new SpeechError(
      `AssemblyAI answered ${res.status}: ${detail}`,
      retryableStatus(res.status),
      res.status,
    );
  }
  return res;
}

class LimitedFiles extends FileService {
  constructor(
    params: ConstructorParameters<typeof FileService>[0],
    private readonly limits: CallLimits,
  ) {
    super(params);
  }
  protected override fetch(input: string, init?: RequestInit): Promise<Response> {
    return limitedFetch((i, o) => this.fetchResponse(i, o), this.limits, input, init);
  }
}

class LimitedTranscripts extends TranscriptService {
  constructor(
    params: ConstructorParameters<typeof TranscriptService>[0],
    files: FileService,
    private readonly limits: CallLimits,
  ) {
    super(params, files);
  }
  protected override fetch(input: string, init?: RequestInit): Promise<Response> {
    return limitedFetch((i, o) => this.fetchResponse(i, o), this.limits, input, init);
  }
}

/**
 * AssemblyAI async transcription: upload the file, submit a job with speaker labels, poll it.
 * The job id is handed out as soon as the job exists, so a restarted worker polls the same
 * job instead of uploading the recording again.
 */
export function assemblyAiProvider(opts: AssemblyAiOptions): SpeechProvider {
  const params = {
    apiKey: opts.apiKey,
    baseUrl: (opts.baseUrl ?? 'https://api.assemblyai.com').replace(/\/+$/, ''),
  };
  return {
    name: 'assemblyai',
    async transcribe(req) {
      if (req.signal?.aborted) throw abortError(req.signal);
      const limits: CallLimits = { timeoutMs: opts.timeoutMs, ...(req.signal ? { signal: req.signal } : {}) };
      const files = new LimitedFiles(params, limits);
      const transcripts = new LimitedTranscripts(params, files, limits);
      let jobId = req.resumeJobId ?? null;
      if (jobId) {
        // A job the provider no longer knows (deleted, expired) is started again.
        const known = await transcripts.get(jobId).catch((err: unknown) => {
          if (err instanceof SpeechError && err.status === 404) return null;
          throw err;
        });
        if (!known) jobId = null;
      }
      if (!jobId) {
        const audio = await req.openAudio();
        let uploadUrl: string;
        try {
          uploadUrl = await files.upload(audio);
        } finally {
          audio.destroy();
        }
        const submitted = await transcripts.submit({ audio_url: uploadUrl, speaker_labels: true });
        jobId = submitted.id;
        await req.onJobId?.(jobId);
      }
      let done: Transcript;
      try {
        done = await transcripts.waitUntilReady(jobId, {
          pollingInterval: opts.pollIntervalMs,
          pollingTimeout: POLLING_TIMEOUT_MS,
        });
      } catch (err) {
        if (err instanceof SpeechError) throw err;
        if (req.signal?.aborted) throw abortError(req.signal);
        throw new SpeechError(`AssemblyAI job ${jobId} did not finish: ${(err as Error).message}`, true);
      }
      if (done.status === 'error') {
        throw new SpeechError(
          `AssemblyAI could not transcribe the recording: ${done.error ?? 'unknown error'}`,
          false,
        );
      }
      return toResult(done);
    },
  };
}

/** 'A' -> 1, 'B' -> 2, ..., 'Z' -> 26, 'AA' -> 27; a numeric label keeps its number. */
export function speakerNumber(label: string | null | undefined): number {
  const s = (label ?? '').trim().toUpperCase();
  if (/^\d+$/.test(s)) return Math.max(1, Number(s));
  if (!/^[A-Z]+$/.test(s)) return 1;
  let n = 0;
  for (const c of s) n = n * 26 + (c.charCodeAt(0) - 64);
  return n;
}

function toResult(t: Transcript): { durationSeconds: number; lines: SpeechLine[] } {
  const durationSeconds = Number(t.audio_duration ?? 0) || 0;
  let lines: SpeechLine[];
  if (t.utterances && t.utterances.length > 0) {
    lines = t.utterances.map((u) => ({
      seconds: (u.start ?? 0) / 1000,
      ...(u.end > (u.start ?? 0) ? { end: u.end / 1000 } : {}),
      speaker: speakerNumber(u.speaker),
      text: (u.text ?? '').trim(),
    }));
  } else {
    const text = (t.text ?? '').trim();
    lines = text ? [{ seconds: 0, speaker: 1, text }] : [];
  }
  return { durationSeconds, lines: lines.filter((l) => l.text.length > 0) };
}
