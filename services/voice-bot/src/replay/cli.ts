// `pnpm live:replay -- --episode <CRD3 json> --owner <user id> [--speed N] [--sessions N]`
//
// Plays a CRD3 episode as live sessions into a running Chronicler. With NATS_URL set (a
// cluster) it publishes onto the bus (BUS_PREFIX) exactly as the voice bot's pipeline does;
// otherwise it goes through the gateway's /api/live-ingest at --url with the embedded
// system's machine key (read from --data-dir, default ./data) or --token (an admin's).
import { createBus, createLogger, redactUrl } from '@chronicler/kit';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { readCrd3Turns, replaySession } from './replay.ts';
import { busSink, httpSink, readMachineKey, type LiveSink } from './sink.ts';
import { replaySpeech } from './speech.ts';

const USAGE = `usage: pnpm live:replay -- --episode <CRD3 json> --owner <user id>
  [--speed N]      wall-clock speed-up (default 1: real time at 150 words a minute)
  [--sessions N]   sessions played at once (default 1)
  [--turns N]      play only the first N turns
  [--name TEXT]    session name (default 'Live Transcription')
  [--group ID]     put the sessions in this group of the owner
  [--url URL]      gateway, without NATS_URL (default http://localhost:8000)
  [--data-dir DIR] embedded DATA_DIR holding live-ingest.key (default ./data)
  [--token TOKEN]  an admin's token instead of the machine key
  [--speech]       drive the real pipeline: each turn spoken with espeak-ng, encoded to Opus
                   and streamed to the configured speech provider (DEEPGRAM_API_KEY /
                   DEEPGRAM_API_URL or ASSEMBLYAI_*, e.g. the peers in tests/peers); needs NATS_URL
  [--words N]      with --speech: at most N words of each turn (default 20)`;

// A command-line tool, not a service: plain lines for the person running it, results on stdout.
const say = (line: unknown): void => void process.stderr.write(`${String(line)}\n`);
const out = (line: string): void => void process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2).filter((a) => a !== '--'),
    options: {
      episode: { type: 'string' },
      owner: { type: 'string' },
      speed: { type: 'string', default: '1' },
      sessions: { type: 'string', default: '1' },
      turns: { type: 'string' },
      name: { type: 'string' },
      group: { type: 'string' },
      url: { type: 'string', default: 'http://localhost:8000' },
      'data-dir': { type: 'string', default: process.env.DATA_DIR ?? './data' },
      token: { type: 'string' },
      speech: { type: 'boolean', default: false },
      words: { type: 'string', default: '20' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help || !values.episode || !values.owner) {
    say(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  const speed = Number(values.speed);
  const sessions = Number(values.sessions);
  if (!(speed > 0) || !Number.isInteger(sessions) || sessions < 1) {
    say(`--speed must be above 0 and --sessions a whole number above 0\n${USAGE}`);
    process.exit(2);
  }
  let turns = await readCrd3Turns(path.resolve(values.episode));
  if (values.turns) turns = turns.slice(0, Number(values.turns));

  if (values.speech) {
    if (!process.env.NATS_URL) {
      say('--speech publishes from the pipeline onto the bus: set NATS_URL (a cluster-mode system)');
      process.exit(2);
    }
    const ids = await replaySpeech(turns, {
      owner: values.owner,
      speed,
      sessions,
      words: Number(values.words),
      dataDir: path.resolve(values['data-dir']),
      ...(values.name ? { name: values.name } : {}),
      ...(values.group ? { groupId: values.group } : {}),
    });
    for (const id of ids) out(JSON.stringify({ transcriptId: id }));
    return;
  }

  let sink: LiveSink;
  if (process.env.NATS_URL) {
    const bus = await createBus({
      natsUrl: process.env.NATS_URL,
      prefix: process.env.BUS_PREFIX ?? 'chronicler',
      dataDir: path.resolve(values['data-dir']),
      name: 'live-replay',
      logger: createLogger(null, { level: 'warn' }),
    });
    sink = busSink(bus, { closeBus: true });
    say(
      `replaying onto NATS ${redactUrl(process.env.NATS_URL ?? '')} (prefix ${process.env.BUS_PREFIX ?? 'chronicler'})`,
    );
  } else {
    const credential = values.token ?? (await readMachineKey(path.resolve(values['data-dir'])));
    sink = httpSink(values.url, credential);
    say(`replaying through ${redactUrl(values.url)}/api/live-ingest`);
  }

  const stop = new AbortController();
  // Ctrl-C ends the sessions (each gets its end, with what was sent so far); a second one quits.
  process.once('SIGINT', () => {
    say('interrupted: ending the sessions (Ctrl-C again to quit at once)');
    stop.abort();
    process.once('SIGINT', () => process.exit(130));
  });
  // Settled, not all: a session that gave up is ended by replaySession, and the others play on.
  const results = await Promise.allSettled(
    Array.from({ length: sessions }, async (_, i) => {
      // Staggered, so many sessions do not speak in lockstep.
      await new Promise((r) => setTimeout(r, (i * 997) % 3000));
      return replaySession(sink, turns, {
        owner: values.owner!,
        speed,
        ...(values.name ? { name: sessions > 1 ? `${values.name} ${i + 1}` : values.name } : {}),
        ...(values.group ? { groupId: values.group } : {}),
        signal: stop.signal,
        onStart: (id) => say(`session ${i + 1}: transcript ${id}`),
      });
    }),
  );
  await sink.close();
  let failed = 0;
  for (const r of results) {
    if (r.status === 'fulfilled') out(JSON.stringify(r.value));
    else {
      failed++;
      say(r.reason instanceof Error ? r.reason.message : r.reason);
    }
  }
  if (failed > 0) {
    say(`${failed} of ${results.length} sessions stopped early (each was ended)`);
    process.exitCode = 1;
  }
}

main().catch((err: unknown) => {
  say(err instanceof Error ? err.message : err);
  process.exit(1);
});
