import { randomInt } from 'node:crypto';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { oggCrc32 } from './ogg-crc.ts';
import type { OggAppendPoint } from './ogg-file.ts';
import path from 'node:path';
import { OPUS_SILENCE_FRAME, opusPacketSamples } from './opus.ts';

/**
 * A small Ogg muxer for Opus (RFC 3533 pages, RFC 7845 Opus mapping), enough to record one
 * speaker's packets as they arrive, plus a page parser used to check and read the files back.
 */

export const OGG_CONTINUED = 0x01;
export const OGG_BOS = 0x02;
export const OGG_EOS = 0x04;
/** Granule position of a page on which no packet ends. */
export const NO_GRANULE = -1n;

/** One page: `segments` are the lacing values, `body` the bytes they describe. */
function buildPage(p: {
  headerType: number;
  granule: bigint;
  serial: number;
  sequence: number;
  segments: number[];
  body: Buffer;
}): Buffer {
  const header = Buffer.alloc(27 + p.segments.length);
  header.write('OggS', 0, 'latin1');
  header.writeUInt8(0, 4);
  header.writeUInt8(p.headerType, 5);
  header.writeBigInt64LE(p.granule, 6);
  header.writeUInt32LE(p.serial >>> 0, 14);
  header.writeUInt32LE(p.sequence >>> 0, 18);
  header.writeUInt32LE(0, 22);
  header.writeUInt8(p.segments.length, 26);
  for (let i = 0; i < p.segments.length; i++) header.writeUInt8(p.segments[i]!, 27 + i);
  const page = Buffer.concat([header, p.body]);
  page.writeUInt32LE(oggCrc32(page), 22);
  return page;
}

/**
 * Packs packets of one logical stream into pages. Packets are queued with the granule
 * position reached at their end; `pageOut` turns queued packets into pages (at most 255
 * lacing values each, a packet longer than one page continues on the next).
 */
export class OggPacketPager {
  private sequence = 0;
  private queue: { data: Buffer; granule: bigint }[] = [];
  private pagesWritten = 0;
  private lastGranule = 0n;

  constructor(
    readonly serial: number,
    /** Continuing a stream already on disk: its next page's sequence (no BOS page then). */
    from?: { sequence: number; granule: bigint },
  ) {
    if (from) {
      this.sequence = from.sequence;
      this.pagesWritten = 1;
      this.lastGranule = from.granule;
    }
  }

  get queued(): number {
    return this.queue.length;
  }

  add(data: Buffer, granuleAfter: bigint): void {
    this.queue.push({ data, granule: granuleAfter });
  }

  /**
   * Pages for the queued packets but the newest `keep`; the first page carries the BOS flag,
   * the last one EOS when `eos` is set (then every packet is written, whatever `keep` says).
   */
  pageOut(opts: { keep?: number; eos?: boolean } = {}): Buffer[] {
    const keep = opts.eos ? 0 : Math.min(opts.keep ?? 0, this.queue.length);
    const packets = this.queue.slice(0, this.queue.length - keep);
    this.queue = this.queue.slice(this.queue.length - keep);
    const pages: Buffer[] = [];
    let segments: number[] = [];
    let parts: Buffer[] = [];
    let granule = NO_GRANULE;
    let continued = false;
    const emit = (last: boolean, nextContinued: boolean): void => {
      let headerType = continued ? OGG_CONTINUED : 0;
      if (this.pagesWritten === 0) headerType |= OGG_BOS;
      if (last && opts.eos) headerType |= OGG_EOS;
      pages.push(
        buildPage({
          headerType,
          granule,
          serial: this.serial,
          sequence: this.sequence++,
          segments,
          body: Buffer.concat(parts),
        }),
      );
      this.pagesWritten++;
      segments = [];
      parts = [];
      granule = NO_GRANULE;
      continued = nextContinued;
    };
    for (let i = 0; i < packets.length; i++) {
      const { data, granule: g } = packets[i]!;
      // Lacing: a run of 255s and one value below 255 (0 when the length is a multiple of 255).
      const lacing = Math.floor(data.length / 255) + 1;
      let offset = 0;
      for (let s = 0; s < lacing; s++) {
        if (segments.length === 255) emit(false, offset > 0);
        const len = s === lacing - 1 ? data.length - offset : 255;
        segments.push(len);
        parts.push(data.subarray(offset, offset + len));
        offset += len;
      }
      granule = g;
    }
    if (segments.length > 0) emit(true, false);
    else if (opts.eos && packets.length === 0) {
      // Nothing left to carry the flag: an empty EOS page at the stream's current position.
      granule = this.lastGranule;
      emit(true, false);
    }
    if (packets.length > 0) this.lastGranule = packets[packets.length - 1]!.granule;
    return pages;
  }
}

/** The OpusHead identification header (RFC 7845 §5.1), channel mapping family 0. */
function opusHead(opts: { channels: 1 | 2; preSkip: number; inputSampleRate: number }): Buffer {
  const b = Buffer.alloc(19);
  b.write('OpusHead', 0, 'latin1');
  b.writeUInt8(1, 8);
  b.writeUInt8(opts.channels, 9);
  b.writeUInt16LE(opts.preSkip, 10);
  b.writeUInt32LE(opts.inputSampleRate, 12);
  b.writeInt16LE(0, 16);
  b.writeUInt8(0, 18);
  return b;
}

/** The OpusTags comment header (RFC 7845 §5.2): vendor and `KEY=value` comments. */
function opusTags(vendor: string, comments: Record<string, string>): Buffer {
  const parts: Buffer[] = [Buffer.from('OpusTags', 'latin1')];
  const str = (s: string): void => {
    const body = Buffer.from(s, 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32LE(body.length);
    parts.push(len, body);
  };
  str(vendor);
  const entries = Object.entries(comments);
  const count = Buffer.alloc(4);
  count.writeUInt32LE(entries.length);
  parts.push(count);
  for (const [k, v] of entries) str(`${k}=${v}`);
  return Buffer.concat(parts);
}

export interface OggOpusRecorderOptions {
  /** Tags written into OpusTags (ARTIST, TITLE, ...). */
  tags?: Record<string, string>;
  /** Channels in OpusHead: Discord sends stereo. */
  channels?: 1 | 2;
  /** Appends to the file a previous process left (see reopenOggFile) instead of starting it. */
  append?: OggAppendPoint;
}

/**
 * One speaker's recording: an Ogg Opus file written while the audio arrives. Headers go out
 * at once; packets are queued and written as pages on `flush()` (the caller flushes about
 * every second, so a crash loses at most about a second). The newest packet stays queued
 * until `close()`, so that the last page of the file can carry the EOS flag with audio on it.
 *
 * All file work is chained in order behind the open and never blocks the event loop, so
 * packets can be written from the first moment; the first error is kept and reported by
 * `flush()`/`close()` (the live session logs it and carries on transcribing).
 */
export class OggOpusRecorder {
  /** Samples (48 kHz) queued or written so far: the file's length in time. */
  granule = 0n;
  bytesWritten = 0;
  private readonly pager: OggPacketPager;
  private file: FileHandle | null = null;
  private chain: Promise<void>;
  private error: Error | null = null;
  private closed = false;

  constructor(
    readonly filePath: string,
    opts: OggOpusRecorderOptions = {},
  ) {
    const append = opts.append;
    this.pager = new OggPacketPager(append?.serial ?? randomInt(0, 0xffffffff), append);
    this.chain = (async () => {
      await mkdir(path.dirname(filePath), { recursive: true });
      if (append) {
        this.file = await open(filePath, 'a');
        return;
      }
      // 'w': a session's file is new; a rerun of the same session id starts it again rather
      // than appending a second stream with its own headers.
      this.file = await open(filePath, 'w');
    })().catch((err: unknown) => this.keep(err));
    if (append) {
      this.granule = append.granule;
      return;
    }
    // Pre-skip 0: the granule position is then exactly the time since the session started,
    // which keeps every speaker's file aligned with the others and with the transcript.
    this.pager.add(opusHead({ channels: opts.channels ?? 2, preSkip: 0, inputSampleRate: 48_000 }), 0n);
    this.writePages(this.pager.pageOut());
    // OpusTags starts its own page and the first audio packet starts the next (RFC 7845 §3).
    this.pager.add(opusTags('chronicler', opts.tags ?? {}), 0n);
    this.writePages(this.pager.pageOut());
  }

  /** Queues one Opus packet; returns the samples it adds (0: not a valid packet, skipped). */
  writePacket(packet: Buffer): number {
    if (this.closed) return 0;
    const samples = opusPacketSamples(packet);
    if (samples === 0) return 0;
    this.granule += BigInt(samples);
    this.pager.add(packet, this.granule);
    return samples;
  }

  /**
   * Fills `samples` of time with 20 ms silence frames (rounded to whole frames): the silence
   * keeps the file in real time in every player and decoder, at 4 bytes per 20 ms.
   */
  writeSilence(samples: number): void {
    const frames = Math.round(samples / 960);
    for (let i = 0; i < frames; i++) this.writePacket(OPUS_SILENCE_FRAME);
  }

  /** Packets queued and not yet on disk. */
  get pending(): number {
    return this.pager.queued;
  }

  /** Writes queued packets (all but the newest) as pages; resolves once they are written. */
  flush(): Promise<void> {
    if (!this.closed && this.pager.queued > 1) this.writePages(this.pager.pageOut({ keep: 1 }));
    return this.settled();
  }

  /** Writes everything with the EOS flag and closes the file. Idempotent. */
  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.writePages(this.pager.pageOut({ eos: true }));
      this.chain = this.chain.then(() => this.file?.close()).catch((err: unknown) => this.keep(err));
    }
    return this.settled();
  }

  private writePages(pages: Buffer[]): void {
    if (pages.length === 0) return;
    const data = Buffer.concat(pages);
    this.chain = this.chain
      .then(async () => {
        if (this.error || !this.file) return;
        await this.file.write(data);
        this.bytesWritten += data.length;
      })
      .catch((err: unknown) => this.keep(err));
  }

  private keep(err: unknown): void {
    this.error ??= err instanceof Error ? err : new Error(String(err));
  }

  private async settled(): Promise<void> {
    await this.chain;
    if (this.error) throw this.error;
  }
}

export interface OggPage {
  headerType: number;
  granule: bigint;
  serial: number;
  sequence: number;
  segments: number[];
  body: Buffer;
  /** Whether the stored CRC matches the page. */
  crcOk: boolean;
}

/** Splits an Ogg byte stream into pages; throws on a capture pattern out of place. */
export function parseOggPages(data: Buffer): OggPage[] {
  const pages: OggPage[] = [];
  let off = 0;
  while (off < data.length) {
    if (off + 27 > data.length || data.toString('latin1', off, off + 4) !== 'OggS') {
      throw new Error(`No Ogg page at byte ${off}`);
    }
    const count = data.readUInt8(off + 26);
    const segments = [...data.subarray(off + 27, off + 27 + count)];
    const bodyLen = segments.reduce((a, b) => a + b, 0);
    const end = off + 27 + count + bodyLen;
    if (end > data.length) throw new Error(`Truncated Ogg page at byte ${off}`);
    const page = Buffer.from(data.subarray(off, end));
    const stored = page.readUInt32LE(22);
    page.writeUInt32LE(0, 22);
    pages.push({
      headerType: data.readUInt8(off + 5),
      granule: data.readBigInt64LE(off + 6),
      serial: data.readUInt32LE(off + 14),
      sequence: data.readUInt32LE(off + 18),
      segments,
      body: Buffer.from(data.subarray(off + 27 + count, end)),
      crcOk: oggCrc32(page) === stored,
    });
    off = end;
  }
  return pages;
}

/** Reassembles the packets of parsed pages (one logical stream), with the page each ends on. */
export function oggPackets(pages: OggPage[]): { data: Buffer; pageIndex: number }[] {
  const packets: { data: Buffer; pageIndex: number }[] = [];
  let current: Buffer[] = [];
  pages.forEach((page, pageIndex) => {
    let off = 0;
    for (const len of page.segments) {
      current.push(page.body.subarray(off, off + len));
      off += len;
      if (len < 255) {
        packets.push({ data: Buffer.concat(current), pageIndex });
        current = [];
      }
    }
  });
  return packets;
}
