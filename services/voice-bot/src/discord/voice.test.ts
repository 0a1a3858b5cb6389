import { describe, expect, it } from 'vitest';
import { OpusFrameEncoder } from '../pipeline/opus.ts';
import { isUndecryptedDaveFrame } from './voice.ts';

describe('isUndecryptedDaveFrame', () => {
  it('knows a DAVE frame by its supplemental data and magic marker, and an Opus frame as not one', () => {
    const encoder = new OpusFrameEncoder({ rate: 48_000, channels: 2 });
    const opus = [...encoder.encode(Buffer.alloc(3840, 7)), ...encoder.flush()];
    encoder.destroy();
    expect(opus.length).toBeGreaterThan(0);
    for (const p of opus) expect(isUndecryptedDaveFrame(p)).toBe(false);
    // Ciphertext, 8-byte tag, 1-byte ULEB128 nonce, no unencrypted ranges, size 12, 0xFAFA.
    const frame = Buffer.concat([
      Buffer.alloc(40, 0x5a),
      Buffer.alloc(8, 1),
      Buffer.from([3, 12, 0xfa, 0xfa]),
    ]);
    expect(isUndecryptedDaveFrame(frame)).toBe(true);
    expect(isUndecryptedDaveFrame(Buffer.from([0xf8, 0xff, 0xfe]))).toBe(false);
    expect(isUndecryptedDaveFrame(Buffer.concat([Buffer.alloc(20), Buffer.from([200, 0xfa, 0xfa])]))).toBe(
      false,
    );
  });
});
