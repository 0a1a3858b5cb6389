// Audio upload memory: how much the gateway process grows while a 500 MB recording is
// streamed through POST /api/transcripts/manual-audio into the blob store, next to the
// budget (under 64 MB for a 500 MB upload) and to a 5 MB upload measured the same way in the same
// run. The embedded system runs in this process, so its RSS is the gateway's (the client
// below streams a generated body and holds at most one 1 MiB chunk).
import { AUDIO_MAX_BYTES } from '@chronicler/contracts';
import http from 'node:http';
import v8 from 'node:v8';
import vm from 'node:vm';
import { localSignIn } from '../support/auth.ts';
import { startSystem } from '../support/system.ts';
import { startDeepgramPeer } from '../peers/deepgram.ts';
import { printTable } from './report.ts';
import { wavHeader } from '../support/audio.ts';

const MB = 1024 * 1024;
const BUDGET_MB = 64;
const CHUNK = Buffer.alloc(MB, 0x55);

// A full collection before each measurement, so that each starts from settled memory
// (`pnpm bench` does not pass --expose-gc).
v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

interface Sample {
  rss: number;
  arrayBuffers: number;
}

/** Streams a generated WAV of `fileBytes` as the form's file; answers the peak growth seen meanwhile. */
async function measureUpload(url: string, token: string, fileBytes: number) {
  const boundary = 'bench-boundary-7d1f';
  const head = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nBench session\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="session_date"\r\n\r\n2015-03-12T00:00:00.000Z\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="audio"; filename="bench.wav"\r\n` +
      `Content-Type: audio/wav\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const header = wavHeader(fileBytes - 44);
  const total = head.length + fileBytes + tail.length;

  collect();
  await new Promise((r) => setTimeout(r, 200));
  const start: Sample = process.memoryUsage();
  let peak: Sample = { ...start };
  const sampler = setInterval(() => {
    const m = process.memoryUsage();
    peak = { rss: Math.max(peak.rss, m.rss), arrayBuffers: Math.max(peak.arrayBuffers, m.arrayBuffers) };
  }, 20);
  const t0 = performance.now();
  const status = await new Promise<number>((resolve, reject) => {
    const req = http.request(`${url}/api/transcripts/manual-audio`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(total),
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    void (async () => {
      const write = (b: Buffer) =>
        req.write(b) ? Promise.resolve() : new Promise<void>((r) => req.once('drain', () => r()));
      await write(head);
      await write(header);
      let left = fileBytes - header.length;
      while (left > 0) {
        const n = Math.min(left, CHUNK.length);
        await write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n));
        left -= n;
      }
      req.end(tail);
    })().catch(reject);
  });
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  if (status !== 200) throw new Error(`upload of ${fileBytes} bytes answered ${status}`);
  return {
    upload: `${(fileBytes / MB).toFixed(0)} MB`,
    seconds,
    startRssMB: start.rss / MB,
    peakRssMB: peak.rss / MB,
    rssGrowthMB: (peak.rss - start.rss) / MB,
    arrayBuffersGrowthMB: (peak.arrayBuffers - start.arrayBuffers) / MB,
    mbPerSec: fileBytes / MB / seconds,
  };
}

export async function benchUploadMemory(): Promise<void> {
  const peer = await startDeepgramPeer();
  // Transcription must not overlap the measurement: the peer holds it until the end.
  peer.hold();
  const system = await startSystem({
    mode: 'embedded',
    env: { AUTH_LOCAL_ENABLED: 'true', LOG_LEVEL: 'error', ...peer.env() },
  });
  try {
    const { cookie } = await localSignIn(system.url, 'bench');
    await measureUpload(system.url, cookie, 5 * MB); // warm-up: code paths, buffers, the PGlite cache
    const small = await measureUpload(system.url, cookie, 5 * MB);
    const large = await measureUpload(system.url, cookie, AUDIO_MAX_BYTES);
    printTable('audio upload: gateway memory growth during the upload', [small, large]);
    const growth = Math.max(large.rssGrowthMB, 0);
    console.log(
      `500 MB upload raised RSS by ${growth.toFixed(1)} MB: ${(growth / BUDGET_MB).toFixed(2)} x the ` +
        `${BUDGET_MB} MB budget (${growth < BUDGET_MB ? 'within' : 'OVER'}); ` +
        `${(growth / Math.max(small.rssGrowthMB, 1)).toFixed(2)} x the growth of a 5 MB upload`,
    );
  } finally {
    await system.stop();
    await peer.close();
  }
}
