import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyReply } from 'fastify';

/**
 * A local stand-in for AssemblyAI's async transcription API, speaking its wire format:
 * `Authorization: <key>`, `POST /v2/upload` (raw body -> `{upload_url}`), `POST
 * /v2/transcript` (`{audio_url, speaker_labels}` -> a transcript object, status 'queued'),
 * `GET /v2/transcript/{id}` (queued -> processing -> completed, or 'error' with `error`),
 * with `utterances` (speaker letters, times in milliseconds) and `audio_duration` (seconds).
 * Errors are `{"error": "..."}` with the status the real service uses.
 */
interface AssemblyAiUtterance {
  /** Milliseconds from the start. */
  start: number;
  /** 'A', 'B', ... */
  speaker: string;
  text: string;
}

type AssemblyAiRoute = 'upload' | 'submit' | 'poll';

type AssemblyAiFailure = { route?: AssemblyAiRoute } & (
  { status: number; message?: string } | { delayMs: number }
);

interface AssemblyAiJob {
  id: string;
  uploadId: string;
  bytes: number;
  speakerLabels: boolean;
  polls: number;
  status: 'queued' | 'processing' | 'completed' | 'error';
}

export interface AssemblyAiPeer {
  readonly url: string;
  readonly apiKey: string;
  /** Lines to answer; default: derived from the number of bytes uploaded. */
  script: ((bytes: number) => { utterances: AssemblyAiUtterance[]; duration: number }) | null;
  /** Failures applied to the next matching requests, one each, in order. */
  readonly failures: AssemblyAiFailure[];
  /** Set: the next jobs to finish end in status 'error' with this message. */
  jobError: string | null;
  /** While set, jobs stay 'processing' however often they are polled. */
  holdJobs: boolean;
  /** Polls a job needs before it completes (after queued and processing). */
  pollsToComplete: number;
  /** Bytes of each upload, by upload id. */
  readonly uploads: Map<string, number>;
  readonly jobs: Map<string, AssemblyAiJob>;
  /** Count of requests by route. */
  readonly calls: Record<AssemblyAiRoute, number>;
  /** Resolves with the first job matching `match` once it has been polled. */
  waitForPolledJob(match: (job: AssemblyAiJob) => boolean): Promise<AssemblyAiJob>;
  env(): Record<string, string>;
  close(): Promise<void>;
}

function defaultAssemblyAiScript(bytes: number): {
  utterances: AssemblyAiUtterance[];
  duration: number;
} {
  return {
    duration: Math.round(bytes / 32_000 + 5),
    utterances: [
      { start: 1200, speaker: 'A', text: 'Welcome back to the table, everyone.' },
      { start: 3600, speaker: 'B', text: 'I roll for initiative.' },
      { start: 4900, speaker: 'A', text: `That recording had ${bytes} bytes.` },
    ],
  };
}

export async function startAssemblyAiPeer(opts: { apiKey?: string } = {}): Promise<AssemblyAiPeer> {
  const apiKey = opts.apiKey ?? `aai-${randomUUID()}`;
  const app = Fastify({ logger: false });
  app.addContentTypeParser('application/octet-stream', (_req, payload, done) => {
    let bytes = 0;
    payload.on('data', (chunk: Buffer) => (bytes += chunk.length));
    payload.on('end', () => done(null, { bytes }));
    payload.on('error', (err) => done(err, undefined));
  });

  const pollWaiters: { match: (job: AssemblyAiJob) => boolean; resolve: (job: AssemblyAiJob) => void }[] = [];
  const jobErrors = new Map<string, string>();

  const peer: AssemblyAiPeer = {
    url: '',
    apiKey,
    script: null,
    failures: [],
    jobError: null,
    holdJobs: false,
    pollsToComplete: 1,
    uploads: new Map(),
    jobs: new Map(),
    calls: { upload: 0, submit: 0, poll: 0 },
    waitForPolledJob(match) {
      const polled = [...peer.jobs.values()].find((j) => j.polls > 0 && match(j));
      if (polled) return Promise.resolve(polled);
      return new Promise((resolve) => pollWaiters.push({ match, resolve }));
    },
    env: () => ({
      ASSEMBLYAI_API_KEY: apiKey,
      ASSEMBLYAI_BASE_URL: peer.url,
      ASSEMBLYAI_POLL_INTERVAL_MS: '50',
    }),
    async close() {
      await app.close();
    },
  };

  const fail = (reply: FastifyReply, status: number, error: string) => reply.code(status).send({ error });

  /** Auth and the failure switches; answers true when the request was answered here. */
  async function gate(route: AssemblyAiRoute, authorization: string | undefined, reply: FastifyReply) {
    peer.calls[route]++;
    const i = peer.failures.findIndex((f) => !f.route || f.route === route);
    const failure = i >= 0 ? peer.failures.splice(i, 1)[0] : undefined;
    if (failure && 'delayMs' in failure) await new Promise((r) => setTimeout(r, failure.delayMs));
    if (authorization !== apiKey) {
      await fail(reply, 401, 'Authentication error, API token missing/invalid');
      return true;
    }
    if (failure && 'status' in failure) {
      await fail(reply, failure.status, failure.message ?? `Peer failure ${failure.status}`);
      return true;
    }
    return false;
  }

  function transcriptBody(job: AssemblyAiJob) {
    const base = {
      id: job.id,
      status: job.status,
      audio_url: `https://cdn.assemblyai.com/upload/${job.uploadId}`,
      speaker_labels: job.speakerLabels,
      language_code: 'en_us',
      text: null as string | null,
      words: null as unknown,
      utterances: null as unknown,
      audio_duration: null as number | null,
      confidence: null as number | null,
      error: undefined as string | undefined,
    };
    if (job.status === 'error') return { ...base, error: jobErrors.get(job.id) ?? 'Transcription failed' };
    if (job.status !== 'completed') return base;
    const { utterances, duration } = (peer.script ?? defaultAssemblyAiScript)(job.bytes);
    const words = (u: AssemblyAiUtterance) =>
      u.text.split(/\s+/).map((w, i) => ({
        text: w,
        start: u.start + i * 300,
        end: u.start + i * 300 + 250,
        confidence: 0.97,
        speaker: job.speakerLabels ? u.speaker : null,
      }));
    return {
      ...base,
      text: utterances.map((u) => u.text).join(' '),
      words: utterances.flatMap(words),
      utterances: job.speakerLabels
        ? utterances.map((u) => ({
            start: u.start,
            end: u.start + u.text.split(/\s+/).length * 300,
            confidence: 0.97,
            speaker: u.speaker,
            text: u.text,
            words: words(u),
          }))
        : null,
      audio_duration: duration,
      confidence: 0.97,
    };
  }

  app.post('/v2/upload', async (req, reply) => {
    const bytes = (req.body as { bytes?: number } | undefined)?.bytes ?? 0;
    if (await gate('upload', req.headers.authorization, reply)) return reply;
    if (bytes === 0)
      return fail(
        reply,
        400,
        'Upload failed, please try again. If you continue to have issues please reach out to support@assemblyai.com',
      );
    const id = randomUUID();
    peer.uploads.set(id, bytes);
    return { upload_url: `https://cdn.assemblyai.com/upload/${id}` };
  });

  app.post<{ Body: { audio_url?: string; speaker_labels?: boolean } }>(
    '/v2/transcript',
    async (req, reply) => {
      if (await gate('submit', req.headers.authorization, reply)) return reply;
      const uploadId = /\/upload\/([0-9a-f-]+)$/.exec(req.body?.audio_url ?? '')?.[1];
      const bytes = uploadId ? peer.uploads.get(uploadId) : undefined;
      if (!uploadId || bytes === undefined)
        return fail(reply, 400, 'Invalid audio_url: the upload is unknown');
      const job: AssemblyAiJob = {
        id: randomUUID(),
        uploadId,
        bytes,
        speakerLabels: req.body.speaker_labels === true,
        polls: 0,
        status: 'queued',
      };
      if (peer.jobError !== null) jobErrors.set(job.id, peer.jobError);
      peer.jobs.set(job.id, job);
      return transcriptBody(job);
    },
  );

  app.get<{ Params: { id: string } }>('/v2/transcript/:id', async (req, reply) => {
    if (await gate('poll', req.headers.authorization, reply)) return reply;
    const job = peer.jobs.get(req.params.id);
    if (!job) return fail(reply, 404, 'Transcript not found');
    job.polls++;
    if (job.status === 'queued') job.status = 'processing';
    else if (job.status === 'processing' && !peer.holdJobs && job.polls > peer.pollsToComplete) {
      job.status = jobErrors.has(job.id) ? 'error' : 'completed';
    }
    const body = transcriptBody(job);
    for (const w of pollWaiters.filter((x) => x.match(job))) {
      pollWaiters.splice(pollWaiters.indexOf(w), 1);
      w.resolve(job);
    }
    return body;
  });

  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  (peer as { url: string }).url =
    `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return peer;
}
