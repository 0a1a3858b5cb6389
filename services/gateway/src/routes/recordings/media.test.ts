import { ServiceError } from '@chronicler/kit';
import { unzipSync } from 'fflate';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { requireFfmpeg, zipStream } from './media.ts';

const collect = async (s: Readable): Promise<Buffer> => {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(Buffer.from(c as Uint8Array));
  return Buffer.concat(parts);
};

describe('recording downloads', () => {
  const path = process.env.PATH;
  afterEach(() => {
    process.env.PATH = path;
  });

  it('answers 503 with what to do when the server has no ffmpeg', () => {
    process.env.PATH = '/nonexistent';
    let err: unknown;
    try {
      requireFfmpeg();
    } catch (e) {
      err = e;
    }
    expect(ServiceError.is(err) && err.code).toBe('unavailable');
    expect((err as Error).message).toMatch(/need ffmpeg on the server/);
  });

  it('zips each entry as it streams, opening one after the other', async () => {
    const opened: string[] = [];
    const entry = (name: string, chunks: string[]) => ({
      name,
      open: () => {
        opened.push(name);
        return Promise.resolve(Readable.from(chunks.map((c) => Buffer.from(c))));
      },
    });
    const zip = await collect(
      zipStream([entry('Matt.ogg', ['OggS', '-matt']), entry('Laura (2).ogg', ['OggS-laura'])]),
    );
    const files = unzipSync(new Uint8Array(zip));
    expect(Object.keys(files)).toEqual(['Matt.ogg', 'Laura (2).ogg']);
    expect(Buffer.from(files['Matt.ogg']!).toString()).toBe('OggS-matt');
    expect(Buffer.from(files['Laura (2).ogg']!).toString()).toBe('OggS-laura');
    expect(opened).toEqual(['Matt.ogg', 'Laura (2).ogg']);
  });
});
