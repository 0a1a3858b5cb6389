import { open } from 'node:fs/promises';

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
