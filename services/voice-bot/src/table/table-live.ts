import {
  TABLE_RECORDING_BUCKET,
  tableLiveChunkRpc,
  tableLiveEndRpc,
  tableLiveStartRpc,
  type RpcRequest,
} from '@chronicler/contracts';
import { serve, type Bus, type Logger, type Subscription } from '@chronicler/kit';
import type { StreamGate, StreamingProvider } from '@chronicler/speech';
import { opus } from 'prism-media';
import type { Transform } from 'node:stream';
import { LiveSession } from '../pipeline/session.ts';
import { opusPacketSamples } from '../pipeline/opus.ts';
import type { Speaker } from '../pipeline/speaker-channel.ts';
import type { StreamPolicy } from '../pipeline/speaker-stream.ts';

/** The one microphone in the middle of the table: the provider tells its voices apart where it can. */
const TABLE_SPEAKER: Speaker = { key: 'table', displayName: '' };

/** A recording nobody sent a chunk of for this long was abandoned (the page never came back): it ends. */
const ABANDONED_MS = 30 * 60_000;

interface Recording {
  session: LiveSession;
  format: 'webm' | 'ogg';
  /** The next chunk to feed. */
  part: number;
  seq: number;
  demuxer: Transform | null;
  /** Seconds of audio fed so far: the session's clock (a part after a reload follows on). */
  audioSeconds: number;
  /** One feeding at a time, in order. */
  feeding: Promise<void>;
  subs: Subscription[];
  idle: NodeJS.Timeout | null;
}

export interface TableLiveOptions {
  bus: Bus;
  provider: StreamingProvider | null;
  gate: StreamGate | null;
  logger: Logger;
  streamPolicy?: Partial<StreamPolicy>;
  /** Seconds a stream waits for its last finals at the end. */
  finishTimeoutMs?: number;
}

/**
 * Live lines of recordings made at the table (a browser's microphone, see the gateway's
 * /api/table-recordings): one LiveSession per recording, the pipeline a Discord session runs,
 * fed from the chunks the gateway stored. A chunk is WebM or Ogg (what MediaRecorder writes):
 * its Opus packets go to the session as they are, the session's clock being the audio's own
 * (packets counted), so a line's time is its time in the recording however late its chunk
 * came (a lost network, a reload), and chunks are fed strictly in order.
 */
export class TableLive {
  private readonly recordings = new Map<string, Recording>();
  private readonly sub: Subscription;

  constructor(private readonly o: TableLiveOptions) {
    this.sub = serve(o.bus, tableLiveStartRpc, (req) => this.start(req));
  }

  private async start(req: RpcRequest<typeof tableLiveStartRpc>): Promise<{ live: boolean }> {
    if (!this.o.provider) return { live: false };
    if (this.recordings.has(req.id)) return { live: true };
    const startedAtMs = Date.now();
    const rec: Recording = {
      session: null as unknown as LiveSession,
      format: req.format,
      part: 0,
      seq: 0,
      demuxer: null,
      audioSeconds: 0,
      feeding: Promise.resolve(),
      subs: [],
      idle: null,
    };
    rec.session = new LiveSession({
      bus: this.o.bus,
      transcriptId: req.id,
      ownerId: req.owner_id,
      name: req.name,
      ...(req.group_id ? { groupId: req.group_id } : {}),
      origin: 'table',
      provider: this.o.provider,
      gate: this.o.gate,
      keyterms: [],
      // The gateway keeps the recording (the chunks, then the session's track).
      recordingsDir: null,
      logger: this.o.logger,
      now: () => startedAtMs + rec.audioSeconds * 1000,
      ...(this.o.streamPolicy ? { streamPolicy: this.o.streamPolicy } : {}),
      ...(this.o.finishTimeoutMs ? { finishTimeoutMs: this.o.finishTimeoutMs } : {}),
    });
    this.recordings.set(req.id, rec);
    await rec.session.start();
    rec.subs.push(
      serve(this.o.bus, tableLiveChunkRpc(req.id), (chunk) => {
        this.touch(req.id, rec);
        rec.feeding = rec.feeding.then(() => this.feed(req.id, rec, chunk.part, null));
        return rec.feeding.then(() => ({ fed: rec.seq }));
      }),
      serve(this.o.bus, tableLiveEndRpc(req.id), async (end) => {
        rec.feeding = rec.feeding.then(() =>
          this.feed(req.id, rec, end.chunk_counts.length - 1, end.chunk_counts),
        );
        await rec.feeding;
        const ended = await this.end(req.id, rec);
        return { finals: ended };
      }),
    );
    this.touch(req.id, rec);
    this.o.logger.info({ transcriptId: req.id }, 'table recording transcribed live');
    return { live: true };
  }

  private touch(id: string, rec: Recording): void {
    if (rec.idle) clearTimeout(rec.idle);
    rec.idle = setTimeout(() => {
      this.o.logger.warn({ transcriptId: id }, 'table recording abandoned: its live session ends');
      void this.end(id, rec);
    }, ABANDONED_MS);
    rec.idle.unref();
  }

  /**
   * Feeds every stored chunk from the next one on. A chunk not stored yet stops it (the next
   * request goes on from there), unless a later part was asked for (the page was reloaded and
   * records a new part): then the rest of this part is left out of the live lines (it is
   * still in the recording). With `counts` (the end), exactly the chunks named are fed.
   */
  private async feed(id: string, rec: Recording, upToPart: number, counts: number[] | null): Promise<void> {
    const bus = this.o.bus;
    while (rec.part <= upToPart) {
      if (counts && rec.seq >= (counts[rec.part] ?? 0)) {
        this.closePart(rec);
        continue;
      }
      const stream = await bus.blobs.get(TABLE_RECORDING_BUCKET, `${id}/${rec.part}/${rec.seq}`);
      if (!stream) {
        if (rec.part < upToPart) {
          this.o.logger.warn(
            { transcriptId: id, part: rec.part, seq: rec.seq },
            'a part of the table recording went on without its last chunks: they are not transcribed live',
          );
          this.closePart(rec);
          continue;
        }
        return;
      }
      const bytes: Buffer[] = [];
      for await (const c of stream) bytes.push(c as Buffer);
      rec.demuxer ??= this.demuxer(id, rec);
      rec.demuxer.write(Buffer.concat(bytes));
      // The demuxer hands its packets on asynchronously: all of this chunk's before the next.
      await new Promise((r) => setImmediate(r));
      rec.seq++;
    }
  }

  private demuxer(id: string, rec: Recording): Transform {
    const d: Transform = rec.format === 'webm' ? new opus.WebmDemuxer() : new opus.OggDemuxer();
    d.on('data', (packet: Buffer) => {
      rec.session.pushOpus(TABLE_SPEAKER, packet);
      rec.audioSeconds += opusPacketSamples(packet) / 48_000;
    });
    d.on('error', (err) => {
      this.o.logger.warn({ err, transcriptId: id, part: rec.part }, 'table recording chunk not demuxed');
      if (rec.demuxer === d) rec.demuxer = null;
    });
    return d;
  }

  private closePart(rec: Recording): void {
    rec.demuxer?.end();
    rec.demuxer = null;
    rec.part++;
    rec.seq = 0;
  }

  private async end(id: string, rec: Recording): Promise<number> {
    if (rec.idle) clearTimeout(rec.idle);
    this.recordings.delete(id);
    const end = await rec.session.end();
    rec.demuxer?.destroy();
    // Not awaited: the end is answered from inside one of these (a subscription drains its
    // handlers before it is gone).
    for (const s of rec.subs) void s.unsubscribe().catch(() => undefined);
    return end.final_count;
  }

  /** Ends every recording this process transcribes (what was said so far is kept). */
  async stop(): Promise<void> {
    await this.sub.unsubscribe();
    await Promise.all([...this.recordings].map(([id, rec]) => this.end(id, rec)));
  }
}
