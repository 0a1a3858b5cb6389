import { EventEmitter } from 'node:events';
import type { StreamingError, StreamingEvents, StreamingUtterance } from './types.ts';

/** 16-bit mono PCM of a sine tone loud enough to count as speech for the peers. */
export function tone(seconds: number, sampleRate = 16_000, frequency = 220): Buffer {
  const samples = Math.round(seconds * sampleRate);
  const buf = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++) {
    buf.writeInt16LE(Math.round(8_000 * Math.sin((2 * Math.PI * frequency * i) / sampleRate)), i * 2);
  }
  return buf;
}

export const silence = (seconds: number, sampleRate = 16_000): Buffer =>
  Buffer.alloc(Math.round(seconds * sampleRate) * 2);

/** Cuts PCM into 20 ms frames, as Discord's receiver delivers it. */
export function frames(pcm: Buffer, sampleRate = 16_000): Buffer[] {
  const size = Math.round(sampleRate * 0.02) * 2;
  const out: Buffer[] = [];
  for (let i = 0; i < pcm.length; i += size) out.push(pcm.subarray(i, i + size));
  return out;
}

/** StreamingEvents that record everything, with waits on what arrives. */
export class Recorder implements StreamingEvents {
  readonly utterances: StreamingUtterance[] = [];
  readonly reconnects: { attempt: number; reason: string }[] = [];
  closes: { error?: StreamingError }[] = [];
  readonly #changes = new EventEmitter();

  onUtterance(u: StreamingUtterance): void {
    this.utterances.push(u);
    this.#changes.emit('change');
  }
  onClose(info: { error?: StreamingError }): void {
    this.closes.push(info);
    this.#changes.emit('change');
  }
  onReconnect(info: { attempt: number; reason: string }): void {
    this.reconnects.push(info);
    this.#changes.emit('change');
  }

  get finals(): StreamingUtterance[] {
    return this.utterances.filter((u) => u.isFinal);
  }

  waitFor(what: string, probe: (r: Recorder) => boolean, timeoutMs = 10_000): Promise<void> {
    if (probe(this)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#changes.off('change', check);
        reject(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const check = (): void => {
        if (!probe(this)) return;
        clearTimeout(timer);
        this.#changes.off('change', check);
        resolve();
      };
      this.#changes.on('change', check);
    });
  }
}
