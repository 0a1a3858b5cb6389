import type { Logger } from '../logger.ts';
import { MemoryBus } from './memory.ts';
import { NatsBus } from './nats.ts';
import type { Bus } from './types.ts';

export * from './types.ts';
export { MemoryBus, type MemoryBusOptions } from './memory.ts';
export { NatsBus, type NatsBusOptions } from './nats.ts';
export { EncodedJson } from './codec.ts';
export { BusNamespace, isValidSubject, matchSubject, sanitizeName, subjectsOverlap } from './subject.ts';

export interface CreateBusOptions {
  /** NATS server(s); when absent the in-process bus is used (embedded mode). */
  natsUrl?: string;
  /** Namespace for subjects, streams, durables and buckets (BUS_PREFIX). */
  prefix: string;
  /** In-process bus only: where durable streams and blobs are kept. */
  dataDir?: string;
  /** The process's name (the service), for the NATS connection and logs. */
  name: string;
  logger?: Logger;
  /** NATS only: replicas of the streams and buckets it creates (NATS_STREAM_REPLICAS). Default 1. */
  streamReplicas?: number;
}

/** The bus chosen by configuration alone: NATS when a URL is given, else the in-process bus. */
export async function createBus(opts: CreateBusOptions): Promise<Bus> {
  if (opts.natsUrl) {
    return NatsBus.connect({
      url: opts.natsUrl,
      prefix: opts.prefix,
      name: opts.name,
      logger: opts.logger,
      streamReplicas: opts.streamReplicas,
    });
  }
  return new MemoryBus({ prefix: opts.prefix, dataDir: opts.dataDir, name: opts.name, logger: opts.logger });
}
