import { createCipheriv, createDecipheriv } from 'node:crypto';
import { xchacha20poly1305 } from '@noble/ciphers/chacha.js';

/**
 * Discord's voice transport encryption, the two modes it still offers: `aead_aes256_gcm_rtpsize`
 * and `aead_xchacha20_poly1305_rtpsize`. A packet is the RTP header in the clear (the fixed 12
 * bytes, the CSRCs and, when the X bit is set, the 4-byte extension header: the "rtpsize" part),
 * then the AEAD ciphertext of the extension body and the payload, the 16-byte tag, and the
 * 4-byte big-endian nonce counter. The counter is the first 4 bytes of the AEAD nonce (12 bytes
 * for AES-GCM, 24 for XChaCha20), the rest zeros; the clear header is the additional data.
 */

export const MODES = ['aead_aes256_gcm_rtpsize', 'aead_xchacha20_poly1305_rtpsize'] as const;
export type EncryptionMode = (typeof MODES)[number];
export const isMode = (m: unknown): m is EncryptionMode => MODES.includes(m as EncryptionMode);

const RTP_OPUS_PAYLOAD_TYPE = 120;
const TAG = 16;
const NONCE = 4;

export interface RtpPacket {
  /** The fixed header: version, flags, payload type, sequence, timestamp, SSRC. */
  sequence: number;
  timestamp: number;
  ssrc: number;
  marker: boolean;
  /** What the sender's extension body carried (empty without one). */
  extension: Buffer;
  /** The Opus frame (DAVE-encrypted when DAVE is on: that layer is the clients' business). */
  payload: Buffer;
}

const nonceOf = (mode: EncryptionMode, counter: Buffer): Buffer => {
  const nonce = Buffer.alloc(mode === 'aead_aes256_gcm_rtpsize' ? 12 : 24);
  counter.copy(nonce, 0);
  return nonce;
};

function seal(mode: EncryptionMode, key: Uint8Array, nonce: Buffer, aad: Buffer, plain: Buffer): Buffer {
  if (mode === 'aead_aes256_gcm_rtpsize') {
    const c = createCipheriv('aes-256-gcm', key, nonce);
    c.setAAD(aad);
    return Buffer.concat([c.update(plain), c.final(), c.getAuthTag()]);
  }
  return Buffer.from(xchacha20poly1305(key, nonce, aad).encrypt(plain));
}

function open(mode: EncryptionMode, key: Uint8Array, nonce: Buffer, aad: Buffer, sealed: Buffer): Buffer {
  if (mode === 'aead_aes256_gcm_rtpsize') {
    const d = createDecipheriv('aes-256-gcm', key, nonce);
    d.setAAD(aad);
    d.setAuthTag(sealed.subarray(sealed.length - TAG));
    return Buffer.concat([d.update(sealed.subarray(0, sealed.length - TAG)), d.final()]);
  }
  return Buffer.from(xchacha20poly1305(key, nonce, aad).decrypt(sealed));
}

/** Opens a client's packet; throws when it does not authenticate. */
export function openRtp(packet: Buffer, mode: EncryptionMode, key: Uint8Array): RtpPacket {
  if (packet.length < 12 + TAG + NONCE || packet[0]! >> 6 !== 2) throw new Error('not an RTP packet');
  const csrcs = packet[0]! & 0x0f;
  const hasExtension = (packet[0]! & 0x10) !== 0;
  let clear = 12 + 4 * csrcs;
  const extWords = hasExtension ? packet.readUInt16BE(clear + 2) : 0;
  if (hasExtension) clear += 4;
  const counter = packet.subarray(packet.length - NONCE);
  const plain = open(
    mode,
    key,
    nonceOf(mode, counter),
    packet.subarray(0, clear),
    packet.subarray(clear, packet.length - NONCE),
  );
  let body = plain;
  if (packet[0]! & 0x20) body = body.subarray(0, body.length - body[body.length - 1]!);
  return {
    marker: (packet[1]! & 0x80) !== 0,
    sequence: packet.readUInt16BE(2),
    timestamp: packet.readUInt32BE(4),
    ssrc: packet.readUInt32BE(8),
    extension: body.subarray(0, 4 * extWords),
    payload: body.subarray(4 * extWords),
  };
}

/**
 * Seals a packet the way Discord's voice server sends it to a receiving client: the sender's
 * SSRC, sequence and timestamp, a one-byte-header extension (0xBEDE) carrying the RFC 6464
 * audio level, and the recipient's own key and nonce counter.
 */
export function sealRtp(p: RtpPacket, mode: EncryptionMode, key: Uint8Array, counter: number): Buffer {
  const header = Buffer.alloc(16);
  header[0] = 0x90; // version 2, extension
  header[1] = (p.marker ? 0x80 : 0) | RTP_OPUS_PAYLOAD_TYPE;
  header.writeUInt16BE(p.sequence, 2);
  header.writeUInt32BE(p.timestamp >>> 0, 4);
  header.writeUInt32BE(p.ssrc >>> 0, 8);
  header.writeUInt16BE(0xbede, 12);
  header.writeUInt16BE(1, 14); // one 32-bit word of extension elements
  // Element id 1 (audio level), length 0 (one byte): voice activity flag and -dBov level; padded.
  const extension = Buffer.from([0x10, 0x80 | 30, 0, 0]);
  const nonce = Buffer.alloc(NONCE);
  nonce.writeUInt32BE(counter >>> 0, 0);
  const sealed = seal(mode, key, nonceOf(mode, nonce), header, Buffer.concat([extension, p.payload]));
  return Buffer.concat([header, sealed, nonce]);
}
