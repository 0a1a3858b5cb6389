// Audio seeks: a player's Range request near the end of a long recording against one near its
// start, on the same stored file, side by side in one run. A 73 MB recording (what a 4-hour
// Ogg/Opus session keeps; the bytes are a WAV here, the route serves any stored track the same
// way) is uploaded through the API and kept by the transcript service; then rounds of SEEKS
// concurrent 64 KiB ranges at random offsets within the first / the last MiB. Embedded mode
// (the file store of the data directory) always; cluster mode (the NATS object store) when
// NATS_URL, DATABASE_URL and REDIS_URL are set. Budget: end within 1.5x of start.
import http from 'node:http';
import type { AudioTrack } from '@chronicler/contracts';
import { startDeepgramPeer } from '../peers/deepgram.ts';
import { localSignIn } from '../support/auth.ts';
import { wavHeader } from '../support/audio.ts';
import { startSystem, waitFor } from '../support/system.ts';
import { median, printTable } from './report.ts';

const MB = 1024 * 1024;
const FILE_BYTES = 73 * MB;
const RANGE_BYTES = 64 * 1024;
const SEEKS = 10;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const BUDGET = 1.5;

/** Streams a generated recording of `bytes` to the upload route: the session's id. */
async function upload(url: string, token: string, bytes: number): Promise<string> {
  const boundary = 'bench-seek-2b9c';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nLong night\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="session_date"\r\n\r\n2026-03-12T00:00:00.000Z\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="night.wav"\r\n` +
      `Content-Type: audio/wav\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const chunk = Buffer.alloc(MB);
  for (let i = 0; i < chunk.length; i++) chunk[i] = (i * 2654435761) >>> 24;
  const body = await new Promise<string>((resolve, reject) => {
    const req = http.request(`${url}/api/transcripts/manual-audio`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + bytes + tail.length),
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`upload: ${text}`))));
    });
    req.on('error', reject);
    void (async () => {
      const write = (b: Buffer) =>
        req.write(b) ? Promise.resolve() : new Promise<void>((r) => req.once('drain', () => r()));
      await write(head);
      await write(wavHeader(bytes - 44));
      for (let left = bytes - 44; left > 0; left -= chunk.length) {
        await write(left >= chunk.length ? chunk : chunk.subarray(0, left));
      }
      req.end(tail);
    })().catch(reject);
  });
  return String((JSON.parse(body) as { id: string }).id);
}

/** SEEKS concurrent ranges at random offsets within [from, from + 1 MiB): the batch's wall time. */
async function seekBatch(url: string, token: string, from: number, size: number): Promise<number> {
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: SEEKS }, async () => {
      const start = from + Math.floor(Math.random() * (MB - RANGE_BYTES));
      const end = Math.min(size - 1, start + RANGE_BYTES - 1);
      const res = await fetch(url, {
        headers: { authorization: `Bearer ${token}`, range: `bytes=${start}-${end}` },
      });
      const got = (await res.arrayBuffer()).byteLength;
      if (res.status !== 206 || got !== end - start + 1)
        throw new Error(`seek to ${start}: ${res.status}, ${got} bytes`);
    }),
  );
  return performance.now() - t0;
}

async function measure(mode: 'embedded' | 'cluster') {
  const peer = await startDeepgramPeer();
  const system = await startSystem({
    mode,
    env: { AUTH_LOCAL_ENABLED: 'true', LOG_LEVEL: 'warn', SUMMARY_AUTOMATIC: 'false', ...peer.env() },
  });
  try {
    const { cookie } = await localSignIn(system.url, 'bench-seek');
    const id = await upload(system.url, cookie, FILE_BYTES);
    let track: AudioTrack | undefined;
    await waitFor(async () => {
      const res = await fetch(`${system.url}/api/transcripts/${id}/audio/tracks`, {
        headers: { authorization: `Bearer ${cookie}` },
      });
      track = ((await res.json()) as AudioTrack[])[0];
      return track !== undefined;
    }, 300_000);
    const url = `${system.url}${track!.url}`;
    const size = track!.size;
    await seekBatch(url, cookie, 0, size); // warm-up: code paths, the store's handles
    await seekBatch(url, cookie, size - MB, size);
    const start: number[] = [];
    const end: number[] = [];
    // Interleaved, each going first in every other round: neither gets the warmer machine.
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2) end.push(await seekBatch(url, cookie, size - MB, size));
      start.push(await seekBatch(url, cookie, 0, size));
      if (round % 2 === 0) end.push(await seekBatch(url, cookie, size - MB, size));
    }
    return {
      mode,
      'file MB': size / MB,
      'start ms (10 seeks)': median(start),
      'end ms (10 seeks)': median(end),
      'end / start': median(end) / median(start),
    };
  } finally {
    await system.stop();
    await peer.close();
  }
}

export async function benchAudioSeek(): Promise<void> {
  const cluster = ['NATS_URL', 'DATABASE_URL', 'REDIS_URL'].every((v) => process.env[v]);
  if (!cluster)
    console.log('audio-seek: NATS_URL, DATABASE_URL and REDIS_URL are not all set; embedded mode only');
  const rows = [await measure('embedded')];
  if (cluster) rows.push(await measure('cluster'));
  printTable(
    `audio seeks: ${SEEKS} concurrent ${RANGE_BYTES / 1024} KiB ranges within the first / last MiB, medians of ${ROUNDS} rounds`,
    rows,
  );
  for (const r of rows) {
    const ok = r['end / start'] <= BUDGET;
    console.log(
      `${r.mode}: a seek near the end costs ${r['end / start'].toFixed(2)}x one near the start (budget <= ${BUDGET}: ${ok ? 'within' : 'OVER'})`,
    );
    if (!ok) process.exitCode = 1;
  }
}
