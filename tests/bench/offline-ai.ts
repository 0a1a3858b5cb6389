// Embedded mode's second core (issue 16): the offline engine's work on a 4-hour session takes
// seconds of CPU (an answer) or most of one (a summary). Two all-in-one processes on PGlite,
// side by side in one run: one runs that work on its main thread (AI_OFFLINE_THREADS=0), the
// other on a worker thread (the default, 1). In each, chat questions about a 4-hour CRD3
// episode (C2E003; CC BY-SA 4.0, see ../shared/data/crd3/LICENSE) are asked back to back while
// autocannon reads the session list; the list's latency shows whether the process still
// serves while it thinks, and the answers per second what the AI work itself gets done.
// Rounds are interleaved; medians. BENCH_SECONDS (10), BENCH_ROUNDS (3), BENCH_CONNECTIONS (10).
import { crd3Transcript } from '../support/crd3.ts';
import { measure, startEmbeddedProcess, type Sample, type Target } from './gateway.ts';
import { median, printTable } from './report.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
/** Questions asked at once, each as soon as the one before it is answered. */
const ASKERS = 2;
const QUESTIONS = [
  'What did Fjord name his horse?',
  'What did the acid do?',
  'Who did they meet at the carnival?',
  'How much gold did they get?',
];

interface Run {
  list: Sample;
  answers: number;
}

/** The bearer header of the process's seeded user (startEmbeddedProcess seeds one, of 1 KB sessions). */
const headersOf = (t: Target): Record<string, string> => t.bySize.get(1)!.headers;

async function createLongSession(t: Target): Promise<string> {
  const res = await fetch(`${t.url}/api/transcripts/manual`, {
    method: 'POST',
    headers: { ...headersOf(t), 'content-type': 'application/json' },
    body: JSON.stringify({
      name: 'C2E003, four hours',
      session_date: new Date(Date.UTC(2024, 1, 1)).toISOString(),
      transcript: crd3Transcript('C2E003', { timed: true }),
    }),
  });
  if (res.status !== 200) throw new Error(`create answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** Asks questions about the session until `until`; answers how many were answered. */
async function ask(t: Target, sessionId: string, until: number): Promise<number> {
  let answered = 0;
  for (let i = 0; Date.now() < until; i++) {
    const res = await fetch(`${t.url}/api/chat`, {
      method: 'POST',
      headers: { ...headersOf(t), 'content-type': 'application/json' },
      body: JSON.stringify({
        transcript_id: sessionId,
        messages: [{ role: 'user', content: QUESTIONS[i % QUESTIONS.length] }],
      }),
    });
    if (res.status !== 200) throw new Error(`chat answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    // An answer that ends after the window still counts: it was asked within it.
    answered += 1;
  }
  return answered;
}

async function round(t: Target, sessionId: string, withAi: boolean): Promise<Run> {
  const until = Date.now() + SECONDS * 1000;
  const askers = withAi ? Array.from({ length: ASKERS }, () => ask(t, sessionId, until)) : [];
  const list = await measure({
    url: `${t.url}/api/transcripts`,
    headers: headersOf(t),
    connections: CONNECTIONS,
    duration: SECONDS,
  });
  const answers = (await Promise.all(askers)).reduce((a, b) => a + b, 0);
  return { list, answers };
}

export async function benchOfflineAi(): Promise<void> {
  const common = { SUMMARY_AUTOMATIC: 'false', AI_RATE_LIMIT_PER_MINUTE: '100000' };
  const systems = [
    {
      name: 'main thread (AI_OFFLINE_THREADS=0)',
      target: await startEmbeddedProcess({ ...common, AI_OFFLINE_THREADS: '0' }, [1]),
    },
    {
      name: 'worker thread (AI_OFFLINE_THREADS=1)',
      target: await startEmbeddedProcess({ ...common, AI_OFFLINE_THREADS: '1' }, [1]),
    },
  ];
  try {
    const ids = await Promise.all(systems.map((s) => createLongSession(s.target)));
    // Warm-up: the worker thread starts, the JIT and the connection pools warm.
    await Promise.all(systems.map((s, i) => ask(s.target, ids[i]!, Date.now() + 3000)));
    const runs = systems.map(() => ({ idle: [] as Run[], busy: [] as Run[] }));
    for (let r = 1; r <= ROUNDS; r++) {
      for (const [i, s] of systems.entries()) {
        runs[i]!.idle.push(await round(s.target, ids[i]!, false));
        runs[i]!.busy.push(await round(s.target, ids[i]!, true));
      }
      console.error(`round ${r}/${ROUNDS} done`);
    }
    const rows = systems.map((s, i) => {
      const { idle, busy } = runs[i]!;
      return {
        system: s.name,
        'list req/s idle': median(idle.map((x) => x.list.rps)),
        'list p99 ms idle': median(idle.map((x) => x.list.p99)),
        'list req/s while answering': median(busy.map((x) => x.list.rps)),
        'list p50 ms while answering': median(busy.map((x) => x.list.p50)),
        'list p99 ms while answering': median(busy.map((x) => x.list.p99)),
        'answers/s': median(busy.map((x) => x.answers / SECONDS)),
        errors: [...idle, ...busy].reduce((n, x) => n + x.list.errors, 0),
      };
    });
    printTable(
      `Offline AI on a worker thread: embedded mode, ${ASKERS} chat questions at a time about a 4-hour session, ${CONNECTIONS} connections reading the list (${ROUNDS} rounds of ${SECONDS} s, medians)`,
      rows,
    );
    const [main, worker] = rows;
    console.log(
      `worker/main thread while answering: list req/s ${(worker!['list req/s while answering'] / main!['list req/s while answering']).toFixed(2)}x, ` +
        `list p99 ${(worker!['list p99 ms while answering'] / main!['list p99 ms while answering']).toFixed(2)}x, ` +
        `answers/s ${(worker!['answers/s'] / main!['answers/s']).toFixed(2)}x`,
    );
  } finally {
    await Promise.all(systems.map((s) => s.target.stop()));
  }
}
