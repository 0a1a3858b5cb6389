import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// patches/nats@2.29.3.patch: a message whose payload spans several socket reads is gathered
// into one buffer of the size the MSG/HMSG line announces, instead of one that doubles as reads
// come (a 500 KB reply allocated 1.6 MB, copied 0.7 MB more and kept a 960 KB buffer alive:
// the gateway's garbage collections under large reads were driven by it).
const require = createRequire(import.meta.url);
const { Parser, Kind } = require('nats/lib/nats-base-client/parser.js') as {
  Parser: new (dispatcher: { push(e: { kind: number; data?: Uint8Array }): void }) => {
    parse(buf: Uint8Array): void;
  };
  Kind: { MSG: number };
};

/** Feeds `wire` to a parser in reads of `read` bytes; the payloads it dispatched. */
function parseInReads(wire: Uint8Array, read: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  const parser = new Parser({
    push: (e) => {
      if (e.kind === Kind.MSG) out.push(e.data!);
    },
  });
  for (let at = 0; at < wire.byteLength; at += read) parser.parse(wire.subarray(at, at + read));
  return out;
}

const msg = (subject: string, payload: Uint8Array): Uint8Array =>
  Buffer.concat([Buffer.from(`MSG ${subject} 1 ${payload.byteLength}\r\n`), payload, Buffer.from('\r\n')]);

const hmsg = (subject: string, headers: string, payload: Uint8Array): Uint8Array => {
  const h = Buffer.from(`NATS/1.0\r\n${headers}\r\n\r\n`);
  return Buffer.concat([
    Buffer.from(`HMSG ${subject} 1 ${h.byteLength} ${h.byteLength + payload.byteLength}\r\n`),
    h,
    payload,
    Buffer.from('\r\n'),
  ]);
};

describe('the patched nats.js parser', () => {
  it('delivers payloads that span reads byte for byte, in a buffer of exactly their size', () => {
    const payloads = [1, 65_535, 65_536, 65_537, 200_001, 500_000].map((n) => randomBytes(n));
    const wire = Buffer.concat([
      ...payloads.map((p, i) => msg(`s.${i}`, p)),
      msg('s.small', Buffer.from('x')),
    ]);
    // Reads of a socket's size, one byte short of it, and ones that cut every line and payload.
    for (const read of [65_536, 65_535, 7_919, 1_000_003]) {
      const got = parseInReads(wire, read);
      expect(got.map((d) => d.byteLength)).toEqual([...payloads.map((p) => p.byteLength), 1]);
      got.slice(0, -1).forEach((d, i) => expect(Buffer.compare(Buffer.from(d), payloads[i]!)).toBe(0));
      for (const [i, d] of got.entries()) {
        // Spanning more than one read: its own buffer, never larger than the payload.
        if (d.byteLength > read) expect(d.buffer.byteLength).toBe(payloads[i]!.byteLength);
      }
    }
  });

  it('keeps the headers of a message whose headers and payload span reads', () => {
    const payload = randomBytes(300_000);
    const wire = hmsg('s.h', 'Nats-Msg-Id: abc', payload);
    const [data] = parseInReads(wire, 4_096);
    const headerBytes = Buffer.from('NATS/1.0\r\nNats-Msg-Id: abc\r\n\r\n').byteLength;
    expect(data!.byteLength).toBe(headerBytes + payload.byteLength);
    expect(Buffer.from(data!.subarray(0, headerBytes)).toString()).toContain('Nats-Msg-Id: abc');
    expect(Buffer.compare(Buffer.from(data!.subarray(headerBytes)), payload)).toBe(0);
  });
});
