import { keepTrackRpc, SESSION_AUDIO_BUCKET } from '@chronicler/contracts';
import { createLogger, MemoryBus, serve, ServiceError } from '@chronicler/kit';
import { randomUUID } from 'node:crypto';
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OggOpusRecorder } from '../pipeline/ogg-writer.ts';
import { OPUS_SILENCE_FRAME } from '../pipeline/opus.ts';
import type { SessionState } from './state.ts';
import { TrackUploader } from './track-upload.ts';

const logger = createLogger('voice-bot-test', { level: 'silent' });
let bus: MemoryBus;
let dir: string;

beforeEach(async () => {
  bus = new MemoryBus({ prefix: `tu${randomUUID().slice(0, 8)}`, name: 'track-upload-test' });
  dir = await mkdtemp(path.join(os.tmpdir(), 'track-upload-'));
});
afterEach(async () => {
  await bus.close();
  await rm(dir, { recursive: true, force: true });
});

/** A speaker's recording as the pipeline writes it: `frames` 20 ms packets. */
async function record(tid: string, key: string, artist: string, frames: number): Promise<string> {
  const file = path.join(dir, tid, `${key}.ogg`);
  const rec = new OggOpusRecorder(file, { tags: { ARTIST: artist } });
  for (let i = 0; i < frames; i++) rec.writePacket(OPUS_SILENCE_FRAME);
  await rec.close();
  return file;
}

const state = (tid: string, ended: boolean): SessionState => ({
  version: 1,
  transcript_id: tid,
  owner_id: 'owner-1',
  owner_discord_id: '1001',
  guild_id: '42',
  channel_id: '7',
  text_channel_id: '8',
  shard_id: 0,
  name: 'Night',
  group_id: null,
  started_at: new Date().toISOString(),
  provider: null,
  paused: [],
  ended_at: ended ? new Date().toISOString() : null,
});

describe('TrackUploader', () => {
  it('retries until the transcript service acknowledges, then removes the local file; a torn last page is left out', async () => {
    const tid = randomUUID();
    const file = await record(tid, '1001', 'Alice', 50);
    const whole = await readFile(file);
    // A bot killed mid-write: half a page after the last whole one.
    await appendFile(file, whole.subarray(0, 40));
    const calls: unknown[] = [];
    const sub = serve(bus, keepTrackRpc, (req) => {
      calls.push(req);
      if (calls.length === 1) throw new ServiceError('unavailable', 'database down');
      return { kept: true };
    });
    const uploader = new TrackUploader({
      bus,
      recordingsDir: dir,
      logger,
      retry: { firstMs: 10, maxMs: 20 },
    });
    await uploader.hand(state(tid, true));
    await sub.unsubscribe();
    expect(calls).toHaveLength(2);
    expect(calls[1]).toEqual({
      owner_id: 'owner-1',
      transcript_id: tid,
      speaker: 'Alice',
      blob: `${tid}/1001.ogg`,
      size: whole.length,
      format: 'ogg',
    });
    const stored = await bus.blobs.get(SESSION_AUDIO_BUCKET, `${tid}/1001.ogg`);
    const chunks: Buffer[] = [];
    for await (const c of stored!) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(whole)).toBe(true);
    expect(await readdir(path.join(dir, tid))).toEqual([]);
  });

  it('keeps the file while the service does not answer, and stops retrying when the bot stops', async () => {
    const tid = randomUUID();
    await record(tid, '1001', 'Alice', 5);
    const uploader = new TrackUploader({
      bus,
      recordingsDir: dir,
      logger,
      retry: { firstMs: 10, maxMs: 20 },
    });
    const sub = serve(bus, keepTrackRpc, () => {
      throw new ServiceError('unavailable', 'down');
    });
    const job = uploader.hand(state(tid, true));
    await new Promise((r) => setTimeout(r, 100));
    uploader.stop();
    await job;
    await sub.unsubscribe();
    expect(await readdir(path.join(dir, tid))).toEqual(['1001.ogg']);
  });

  it("at a start, hands over the tracks of ended sessions only (a session still open is recovery's first)", async () => {
    const ended = randomUUID();
    const open = randomUUID();
    await record(ended, '1001', 'Alice', 5);
    await record(ended, '1002', 'Bob', 5);
    await record(open, '1001', 'Alice', 5);
    await writeFile(path.join(dir, ended, 'session.json'), JSON.stringify(state(ended, true)));
    await writeFile(path.join(dir, open, 'session.json'), JSON.stringify(state(open, false)));
    const kept: string[] = [];
    const sub = serve(bus, keepTrackRpc, (req) => {
      kept.push(`${req.transcript_id}:${req.speaker}`);
      return { kept: true };
    });
    const uploader = new TrackUploader({ bus, recordingsDir: dir, logger });
    await uploader.recover(() => true);
    await uploader.hand(state(ended, true));
    await sub.unsubscribe();
    expect(kept.sort()).toEqual([`${ended}:Alice`, `${ended}:Bob`]);
    expect(await readdir(path.join(dir, ended))).toEqual(['session.json']);
    expect((await readdir(path.join(dir, open))).sort()).toEqual(['1001.ogg', 'session.json']);
  });
});
