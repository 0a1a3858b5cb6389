import { Transform, type Readable } from 'node:stream';

/**
 * The one byte range of a `Range: bytes=...` header (RFC 9110 §14.1.2), within `size`:
 * null to send the whole body (no header, another unit, or several ranges, which a player
 * never asks for), 'unsatisfiable' for a range wholly past the end (416).
 */
export function byteRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | null | 'unsatisfiable' {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    // A suffix: the last N bytes.
    const n = Number(m[2]);
    if (n === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size) return 'unsatisfiable';
  if (end < start) return null;
  return { start, end };
}

/** Bytes start..end (inclusive) of a stream; what comes before is read and dropped, the rest is not read. */
export function sliceStream(source: Readable, start: number, end: number): Readable {
  let at = 0;
  const slice = new Transform({
    transform(chunk: Buffer, _enc, done) {
      const from = Math.max(0, start - at);
      const to = Math.min(chunk.length, end + 1 - at);
      at += chunk.length;
      if (to > from) this.push(chunk.subarray(from, to));
      if (at > end) {
        this.push(null);
        source.unpipe(slice);
        source.destroy();
      }
      done();
    },
  });
  source.on('error', (err) => slice.destroy(err));
  return source.pipe(slice);
}
