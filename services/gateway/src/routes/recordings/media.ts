import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import { ServiceError } from '@chronicler/kit';
import { Zip, ZipPassThrough } from 'fflate';

/** The system's ffmpeg on PATH, or null: FLAC and mixed downloads need it. */
export function ffmpegPath(): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir || '.', 'ffmpeg');
    if (dir && existsSync(candidate)) return candidate;
  }
  return null;
}

/** The ffmpeg to transcode with; 503 with what to do when the server has none. */
export function requireFfmpeg(): string {
  const found = ffmpegPath();
  if (!found) {
    throw new ServiceError(
      'unavailable',
      'FLAC and mixed downloads need ffmpeg on the server, which is not installed; the Ogg files and the zip still download',
    );
  }
  return found;
}

/**
 * ffmpeg reading each input from its own pipe (fd 3, 4, ...) as it streams in and writing
 * `output` ('flac', or 'ogg' as Opus) to the returned stream: one input is transcoded, several
 * are mixed (amix, each track already starting at session time 0, as long as the longest,
 * not scaled down). Nothing is held whole in memory; `stop` ends it when the client goes.
 */
export function transcode(
  ffmpeg: string,
  inputs: Readable[],
  output: 'flac' | 'ogg',
  onError: (err: Error) => void,
): { stream: Readable; stop: () => void } {
  const args = ['-hide_banner', '-loglevel', 'error', '-nostdin'];
  inputs.forEach((_, i) => args.push('-i', `pipe:${3 + i}`));
  if (inputs.length > 1) {
    args.push('-filter_complex', `amix=inputs=${inputs.length}:duration=longest:normalize=0`);
  }
  args.push(
    ...(output === 'flac' ? ['-c:a', 'flac', '-f', 'flac'] : ['-c:a', 'libopus', '-b:a', '96k', '-f', 'ogg']),
  );
  args.push('pipe:1');
  const child = spawn(ffmpeg, args, {
    stdio: ['ignore', 'pipe', 'pipe', ...inputs.map(() => 'pipe' as const)],
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => {
    if (stderr.length < 4000) stderr += d.toString();
  });
  child.on('error', onError);
  child.on('close', (code, signal) => {
    if (code !== 0 && signal !== 'SIGKILL')
      onError(new Error(`ffmpeg exited ${code ?? signal}: ${stderr.trim()}`));
  });
  inputs.forEach((input, i) => {
    const pipe = child.stdio[3 + i] as Writable;
    pipe.on('error', () => input.destroy());
    input.on('error', (err) => {
      onError(err);
      child.kill('SIGKILL');
    });
    input.pipe(pipe);
  });
  const stop = () => {
    inputs.forEach((s) => s.destroy());
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  return { stream: child.stdout!, stop };
}

/**
 * A zip (stored, not recompressed: Ogg/Opus is compressed already) of named entries opened one
 * after the other, streamed as it is written; the next entry is opened only when needed.
 */
export function zipStream(entries: { name: string; open: () => Promise<Readable> }[]): Readable {
  const out = new PassThrough();
  const zip = new Zip((err, chunk, final) => {
    if (err) out.destroy(err);
    else {
      out.write(chunk);
      if (final) out.end();
    }
  });
  void (async () => {
    for (const entry of entries) {
      const file = new ZipPassThrough(entry.name);
      zip.add(file);
      const source = await entry.open();
      for await (const chunk of source) {
        file.push(chunk as Uint8Array);
        if (out.writableNeedDrain) {
          await new Promise((r) => {
            out.once('drain', r);
            out.once('close', r);
          });
        }
        if (out.destroyed) {
          source.destroy();
          return;
        }
      }
      file.push(new Uint8Array(0), true);
    }
    zip.end();
  })().catch((err: unknown) => out.destroy(err as Error));
  return out;
}
