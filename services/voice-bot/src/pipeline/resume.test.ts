import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reopenOggFile } from './ogg-file.ts';
import { OGG_BOS, OGG_EOS, OggOpusRecorder, oggPackets, parseOggPages } from './ogg-writer.ts';
import { OPUS_SILENCE_FRAME } from './opus.ts';
import { monoToStereo } from './resample.ts';
import { loadResumePoint } from './resume.ts';
import { encodeDiscordOpus } from './synth.ts';

/** `seconds` of a 440 Hz tone as Discord's 20 ms Opus packets. */
function tone(seconds: number): Buffer[] {
  const n = Math.round(seconds * 48_000);
  const mono = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++)
    mono.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 48_000)), i * 2);
  return encodeDiscordOpus(monoToStereo(mono));
}

describe('resuming a session a previous process left', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'chronicler-resume-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('appends to a closed recording as one Ogg stream, answering the audio after a point', async () => {
    const file = path.join(dir, 'a.ogg');
    const first = new OggOpusRecorder(file, { tags: { ARTIST: 'Matt' } });
    for (const p of tone(1)) first.writePacket(p);
    await first.close();
    const point = (await reopenOggFile(file, 48_000n / 2n))!;
    expect(point.granule).toBe(48_000n);
    // The last half second of it, 20 ms a packet.
    expect(point.tail).toHaveLength(25);
    const next = new OggOpusRecorder(file, { append: point });
    next.writeSilence(48_000);
    for (const p of tone(0.5)) next.writePacket(p);
    await next.close();
    const pages = parseOggPages(await readFile(file));
    expect(pages.every((p) => p.crcOk)).toBe(true);
    expect(pages.every((p) => p.serial === pages[0]!.serial)).toBe(true);
    expect(pages.map((p) => p.sequence)).toEqual(pages.map((_, i) => i));
    expect(pages.filter((p) => p.headerType & OGG_BOS)).toHaveLength(1);
    expect(pages.findIndex((p) => p.headerType & OGG_EOS)).toBe(pages.length - 1);
    expect(pages.at(-1)!.granule).toBe((48_000n * 5n) / 2n);
    expect(oggPackets(pages).filter((p) => p.data.equals(OPUS_SILENCE_FRAME))).toHaveLength(50);
  });

  it('cuts a torn last page, and numbers on from the journal', async () => {
    const tid = 'tid-1';
    const sessionDir = path.join(dir, tid);
    const file = path.join(sessionDir, '2003.ogg');
    const rec = new OggOpusRecorder(file, { tags: { ARTIST: 'Travis', CHRONICLER_SPEAKER: '2003' } });
    for (const p of tone(2)) rec.writePacket(p);
    await rec.flush();
    const whole = (await readFile(file)).length;
    await writeFile(file, Buffer.concat([await readFile(file), Buffer.from('OggS\0\0torn')]));
    const final = (index: number, id: string, end: number) =>
      JSON.stringify({
        subject: `live.${tid}.final`,
        msg_id: `${tid}:${id}`,
        payload: { utterance_id: id, final_index: index, end_seconds: end },
      });
    await writeFile(
      path.join(sessionDir, 'finals.jsonl'),
      [final(1, '2003:0:a', 0.5), final(2, '2003:2:b', 1), final(2, '2003:2:b', 1), '{"torn'].join('\n'),
    );
    const point = await loadResumePoint(dir, tid, { startedAtMs: 1000, tails: true });
    expect(point).toMatchObject({ startedAtMs: 1000, finalCount: 2, streamBase: 3 });
    expect((await readFile(file)).length).toBe(whole);
    expect(point.speakers).toHaveLength(1);
    expect(point.speakers[0]!.speaker).toEqual({ key: '2003', displayName: 'Travis' });
    // What was spooled after the last final's end (1 s) and a margin, but the unflushed last packet.
    const tail = point.speakers[0]!.tail;
    expect(tail.length).toBeGreaterThan(25);
    expect(Number(tail[0]!.granule) / 48_000).toBeGreaterThan(1.3);
    const clean = await loadResumePoint(dir, tid, { startedAtMs: 1000, tails: false });
    expect(clean.speakers[0]!.tail).toEqual([]);
  });
});
