import { opus } from 'prism-media';

/** Discord's voice format: 48 kHz stereo Opus in 20 ms frames. */
const DISCORD_SAMPLE_RATE = 48_000;
const DISCORD_CHANNELS = 2;
const DISCORD_FRAME_SAMPLES = 960;

/**
 * A 20 ms Opus packet that decodes to silence (TOC 0xF8: CELT full band, 20 ms, one frame;
 * the payload says "silence"). Discord sends five of these when someone stops speaking; the
 * recorder writes them into gaps so a file keeps real time in every player.
 */
export const OPUS_SILENCE_FRAME: Buffer = Buffer.from([0xf8, 0xff, 0xfe]);

// Frame length in 48 kHz samples by TOC config (RFC 6716 §3.1): SILK 10/20/40/60 ms,
// hybrid 10/20 ms, CELT 2.5/5/10/20 ms.
const FRAME_SAMPLES_BY_CONFIG = [
  ...Array.from({ length: 12 }, (_, c) => [480, 960, 1920, 2880][c % 4]!),
  ...Array.from({ length: 4 }, (_, c) => [480, 960][c % 2]!),
  ...Array.from({ length: 16 }, (_, c) => [120, 240, 480, 960][c % 4]!),
];

/**
 * Samples (at 48 kHz, per channel) that an Opus packet decodes to, read from its TOC byte
 * (RFC 6716 §3.1); 0 for an empty or malformed packet. The Ogg granule position counts these.
 */
export function opusPacketSamples(packet: Uint8Array): number {
  if (packet.length < 1) return 0;
  const toc = packet[0]!;
  const perFrame = FRAME_SAMPLES_BY_CONFIG[toc >> 3]!;
  const code = toc & 3;
  let frames: number;
  if (code === 0) frames = 1;
  else if (code === 1 || code === 2) frames = 2;
  else {
    if (packet.length < 2) return 0;
    frames = packet[1]! & 0x3f;
  }
  const samples = frames * perFrame;
  // A packet holds at most 120 ms.
  return samples > 5760 ? 0 : samples;
}

/** The part of opusscript's handle that prism-media exposes as `encoder` (typed `any` there). */
interface OpusHandle {
  encode(pcm: Buffer, frameSize: number): Buffer;
  decode(packet: Buffer): Buffer;
}

// prism-media's opus.Decoder/Encoder are Transform streams around an Opus handle (here
// opusscript's). We build them so prism picks and loads the Opus library, but call the handle
// they expose as `encoder` synchronously: a stream is destroyed by its first error, and on
// Discord a packet that fails to decrypt or decode must cost one frame, not the speaker.
function handleOf(stream: { encoder: unknown }): OpusHandle {
  return stream.encoder as OpusHandle;
}

/** Decodes one speaker's Opus packets to 48 kHz stereo s16le. Call `destroy()` when done. */
export class OpusPacketDecoder {
  private readonly stream = new opus.Decoder({
    rate: DISCORD_SAMPLE_RATE,
    channels: DISCORD_CHANNELS,
    frameSize: DISCORD_FRAME_SAMPLES,
  });
  private readonly handle = handleOf(this.stream);
  private destroyed = false;

  /** The PCM of one packet, or null when the packet cannot be decoded. */
  decode(packet: Buffer): Buffer | null {
    if (this.destroyed || packet.length === 0) return null;
    try {
      return this.handle.decode(packet);
    } catch {
      return null;
    }
  }

  /** Frees the decoder's memory (opusscript allocates it in its WebAssembly heap). */
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.stream.destroy();
  }
}

/**
 * Encodes s16le PCM into Opus packets of `frameSize` samples per channel (20 ms by default);
 * a partial frame waits for the next chunk. Call `destroy()` when done.
 */
export class OpusFrameEncoder {
  private readonly stream: opus.Encoder;
  private readonly handle: OpusHandle;
  private readonly frameBytes: number;
  private pending: Buffer = Buffer.alloc(0);
  private destroyed = false;

  constructor(readonly opts: { rate: number; channels: 1 | 2; frameSize?: number }) {
    const frameSize = opts.frameSize ?? opts.rate / 50;
    this.stream = new opus.Encoder({ rate: opts.rate, channels: opts.channels, frameSize });
    this.handle = handleOf(this.stream);
    this.frameBytes = frameSize * opts.channels * 2;
    this.frameSize = frameSize;
  }

  readonly frameSize: number;

  /** Whole frames of `pcm` (and what was left over before) as packets. */
  encode(pcm: Buffer): Buffer[] {
    if (this.destroyed) return [];
    const buf = this.pending.length ? Buffer.concat([this.pending, pcm]) : pcm;
    const packets: Buffer[] = [];
    let off = 0;
    for (; off + this.frameBytes <= buf.length; off += this.frameBytes) {
      packets.push(this.handle.encode(buf.subarray(off, off + this.frameBytes), this.frameSize));
    }
    this.pending = Buffer.from(buf.subarray(off));
    return packets;
  }

  /** The left-over partial frame padded with silence, or nothing when there is none. */
  flush(): Buffer[] {
    if (this.destroyed || this.pending.length === 0) return [];
    const last = Buffer.alloc(this.frameBytes);
    this.pending.copy(last);
    this.pending = Buffer.alloc(0);
    return [this.handle.encode(last, this.frameSize)];
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.stream.destroy();
  }
}
