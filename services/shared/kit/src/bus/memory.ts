import { ServiceError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { BaseBus, type StreamConfigRecord } from './base.ts';
import { decodePayload, encodePayload } from './codec.ts';
import type { ResolvedConsumer } from './durable.ts';
import { FileBlobStore } from './memory-blobs.ts';
import { Broker, CoreSub, type CoreMessage } from './memory-broker.ts';
import { MemConsumerClient } from './memory-durable.ts';
import { noResponders, replyText, requestTimedOut, type Reply } from './reply.ts';
import { subjectsOverlap } from './subject.ts';
import type {
  BlobStore,
  BusStatus,
  Consumer,
  DurableHandler,
  Headers,
  MessageMeta,
  PublishAck,
  StreamDefinition,
} from './types.ts';

// The in-process bus of the embedded mode. Everything a caller can observe (JSON copies,
// queue groups, timeouts, error codes, redelivery, dead letters) follows NATS; see BaseBus
// for what the two buses share and memory-broker.ts for the "server" behind it.

export interface MemoryBusOptions {
  /** Namespace of subjects, streams, durables and buckets (BUS_PREFIX). */
  prefix: string;
  /** Where durable streams and blobs are kept; without it streams live in memory and blobs in a temp dir. */
  dataDir?: string;
  /** The client's name (the service), used in logs. */
  name?: string;
  logger?: Logger;
  /**
   * Largest payload accepted, in bytes. Default 1 MiB, the nats-server default, so that a
   * message too big for the cluster fails in embedded mode (and its tests) too.
   */
  maxPayloadBytes?: number;
  /** Spans and trace headers per message. Default: whether startTelemetry registered a tracer. */
  tracing?: boolean;
}

const decodeMessage = (m: CoreMessage): unknown => decodePayload(m.data);

/** The in-process bus (embedded mode); see Bus for the contract it shares with NatsBus. */
export class MemoryBus extends BaseBus<CoreMessage, string | undefined> {
  readonly kind = 'memory' as const;
  readonly blobs: BlobStore;
  private readonly broker: Broker;
  readonly maxPayloadBytes: number;
  protected readonly decode = decodeMessage;

  constructor(opts: MemoryBusOptions) {
    super(opts, 'chronicler-memory', { bus: 'memory', ...(opts.name ? { client: opts.name } : {}) });
    this.maxPayloadBytes = opts.maxPayloadBytes ?? 1024 * 1024;
    this.broker = Broker.acquire(opts.dataDir, this.log);
    this.blobs = new FileBlobStore(
      () => this.broker.blobRoot(),
      this.ns,
      () => this.assertOpen(),
    );
  }

  private tooLarge(text: string | undefined): boolean {
    return (
      text !== undefined &&
      text.length > this.maxPayloadBytes / 4 &&
      Buffer.byteLength(text) > this.maxPayloadBytes
    );
  }

  /** JSON text of a payload, refused like NATS refuses a message above its max_payload. */
  protected encode(payload: unknown, subject: string): string | undefined {
    const text = encodePayload(payload, subject);
    if (this.tooLarge(text)) throw new ServiceError('payload_too_large', `Message too large for ${subject}`);
    return text;
  }

  /** As NATS refuses a reply above its max_payload. */
  protected override readonly checkReply = (reply: Reply, subject: string): void => {
    if (this.tooLarge(replyText(reply)))
      throw new ServiceError('payload_too_large', `Reply of ${subject} is too large`);
  };

  protected sendRequest(
    full: string,
    data: string | undefined,
    headers: Headers | undefined,
    timeoutMs: number,
    subject: string,
  ): Promise<string | undefined> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        reject(requestTimedOut(subject, timeoutMs));
      }, timeoutMs);
      const reply = (text: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(text);
      };
      if (this.broker.route({ subject: full, data, headers: headers ?? {}, reply }) === 0) {
        settled = true;
        clearTimeout(timer);
        reject(noResponders(subject));
      }
    });
  }

  protected metaOf(m: CoreMessage): MessageMeta {
    return { subject: this.ns.strip(m.subject), headers: { ...m.headers } };
  }

  protected respond(m: CoreMessage, _subject: string, reply: Reply): void {
    m.reply?.(replyText(reply));
  }

  protected listen(full: string, queue: string | undefined, onMessage: (m: CoreMessage) => void) {
    if (queue !== undefined && !/^[^\s]+$/.test(queue))
      throw new ServiceError('internal', `Invalid queue group ${JSON.stringify(queue)}`);
    const core = new CoreSub(full, queue, onMessage);
    this.broker.subscribe(core);
    return async () => this.broker.unsubscribe(core);
  }

  protected send(full: string, data: string | undefined, headers: Headers | undefined): void {
    this.broker.route({ subject: full, data, headers: headers ?? {} });
  }

  protected async applyStream(_def: StreamDefinition, config: StreamConfigRecord): Promise<void> {
    await this.broker.ensureStream(config);
  }

  protected async store(
    full: string,
    data: string | undefined,
    headers: Headers | undefined,
    msgId: string | undefined,
    subject: string,
  ): Promise<PublishAck> {
    const stream = this.broker.findStream(full);
    if (!stream) throw new ServiceError('unavailable', `No stream captures ${subject}`);
    const ack = await stream.append(full, data, headers ?? {}, msgId);
    return { stream: stream.name, ...ack };
  }

  protected async startConsumer(cfg: ResolvedConsumer, handler: DurableHandler): Promise<Consumer> {
    const stream = this.broker.streams.get(this.ns.stream(cfg.stream));
    if (!stream) throw new ServiceError('not_found', `No stream named ${cfg.stream}`);
    const fullFilter = cfg.filterSubject
      ? this.ns.subject(cfg.filterSubject, { wildcards: true })
      : undefined;
    if (fullFilter && !stream.config.subjects.some((s) => subjectsOverlap(s, fullFilter))) {
      throw new ServiceError(
        'internal',
        `Filter ${cfg.filterSubject} matches nothing in stream ${cfg.stream}`,
      );
    }
    const durable = stream.durable(this.ns.durable(cfg.durable));
    durable.configure({
      ...cfg,
      ...(fullFilter ? { fullFilter } : {}),
      fullDeadLetter: this.ns.subject(cfg.deadLetterSubject),
      ns: this.ns,
      log: this.log.child({ stream: cfg.stream, durable: cfg.durable }),
    });
    const client = new MemConsumerClient(durable, cfg.concurrency, handler, this.instruments);
    durable.attach(client);
    return client;
  }

  onStatus(_listener: (status: BusStatus) => void): () => void {
    // Nothing to report: an in-process bus has no connection to lose.
    return () => {};
  }

  isConnected(): boolean {
    return this.closing === null;
  }

  protected shutdown(): Promise<void> {
    return this.broker.release();
  }
}
