import { open } from 'node:fs/promises';
import { oggCrc32 } from './ogg-crc.ts';

/**
 * What a recording on disk holds that its upload needs: how many bytes of it are whole Ogg
 * pages (a bot killed mid-write leaves a torn last page, which is left out), and the
 * comments of its OpusTags header (ARTIST is the speaker's name in the transcript).
 */
export async function readOggFile(file: string): Promise<{ length: number; tags: Record<string, string> }> {
  const fh = await open(file, 'r');
  try {
    const { size } = await fh.stat();
    const header = Buffer.alloc(27 + 255);
    let off = 0;
    let tags: Record<string, string> = {};
    for (let page = 0; off + 27 <= size; page++) {
      const { bytesRead } = await fh.read(header, 0, header.length, off);
      if (bytesRead < 27 || header.toString('latin1', 0, 4) !== 'OggS') break;
      const count = header.readUInt8(26);
      if (bytesRead < 27 + count) break;
      let body = 0;
      for (let i = 0; i < count; i++) body += header.readUInt8(27 + i);
      const end = off + 27 + count + body;
      if (end > size) break;
      // The second page is OpusTags (the recorder writes it alone on its page).
      if (page === 1 && body < 1 << 20) {
        const data = Buffer.alloc(body);
        await fh.read(data, 0, body, off + 27 + count);
        tags = opusComments(data);
      }
      off = end;
    }
    return { length: off, tags };
  } finally {
    await fh.close();
  }
}

/** The `KEY=value` comments of an OpusTags packet (RFC 7845 §5.2); {} when it is not one. */
function opusComments(packet: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  if (packet.length < 16 || packet.toString('latin1', 0, 8) !== 'OpusTags') return out;
  let at = 8;
  const vendor = packet.readUInt32LE(at);
  at += 4 + vendor;
  if (at + 4 > packet.length) return out;
  const n = packet.readUInt32LE(at);
  at += 4;
  for (let i = 0; i < n && at + 4 <= packet.length; i++) {
    const len = packet.readUInt32LE(at);
    at += 4;
    if (at + len > packet.length) break;
    const entry = packet.toString('utf8', at, at + len);
    at += len;
    const eq = entry.indexOf('=');
    if (eq > 0) out[entry.slice(0, eq).toUpperCase()] = entry.slice(eq + 1);
  }
  return out;
}

/** Where an Ogg Opus recording left off: enough to append to it as one stream. */
export interface OggAppendPoint {
  serial: number;
  /** The next page's sequence number. */
  sequence: number;
  /** Samples (48 kHz) written so far: the file's length in time. */
  granule: bigint;
}

/**
 * Prepares a recording a previous process left for appending: cuts a torn last page, takes
 * the EOS flag off the last page (a clean stop wrote it), and answers where it left off, with
 * the packets that end after `afterGranule` (for what was said after the last final). Null:
 * no usable file (absent, or not even its headers are whole).
 */
export async function reopenOggFile(
  file: string,
  afterGranule: bigint,
): Promise<(OggAppendPoint & { tail: { data: Buffer; granule: bigint }[] }) | null> {
  const fh = await open(file, 'r+').catch(() => null);
  if (!fh) return null;
  try {
    const { size } = await fh.stat();
    const header = Buffer.alloc(27 + 255);
    let off = 0;
    let pages = 0;
    let last = { off: 0, len: 0, serial: 0, sequence: 0, granule: 0n, flags: 0 };
    const tail: { data: Buffer; granule: bigint }[] = [];
    let partial: Buffer[] = [];
    while (off + 27 <= size) {
      const { bytesRead } = await fh.read(header, 0, header.length, off);
      if (bytesRead < 27 || header.toString('latin1', 0, 4) !== 'OggS') break;
      const count = header.readUInt8(26);
      if (bytesRead < 27 + count) break;
      const lacing = [...header.subarray(27, 27 + count)];
      const body = lacing.reduce((a, b) => a + b, 0);
      if (off + 27 + count + body > size) break;
      const granule = header.readBigInt64LE(6);
      last = {
        off,
        len: 27 + count + body,
        serial: header.readUInt32LE(14),
        sequence: header.readUInt32LE(18),
        granule: granule >= 0n ? granule : last.granule,
        flags: header.readUInt8(5),
      };
      if (pages >= 2 && granule > afterGranule) {
        // Audio pages: each packet's end is known only for the page's last one; 20 ms each before it.
        const data = Buffer.alloc(body);
        await fh.read(data, 0, body, off + 27 + count);
        const packets: Buffer[] = [];
        let at = 0;
        for (const len of lacing) {
          partial.push(data.subarray(at, at + len));
          at += len;
          if (len < 255) {
            packets.push(Buffer.concat(partial));
            partial = [];
          }
        }
        packets.forEach((p, i) =>
          tail.push({ data: p, granule: granule - BigInt((packets.length - 1 - i) * 960) }),
        );
      }
      off += last.len;
      pages++;
    }
    if (pages < 2) return null;
    await fh.truncate(off);
    if (last.flags & 0x04) {
      const page = Buffer.alloc(last.len);
      await fh.read(page, 0, last.len, last.off);
      page.writeUInt8(last.flags & ~0x04, 5);
      page.writeUInt32LE(0, 22);
      page.writeUInt32LE(oggCrc32(page), 22);
      await fh.write(page, 0, last.len, last.off);
    }
    return {
      serial: last.serial,
      sequence: last.sequence + 1,
      granule: last.granule,
      tail: tail.filter((t) => t.granule > afterGranule),
    };
  } finally {
    await fh.close();
  }
}
