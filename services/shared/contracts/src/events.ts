import type { Static, TSchema } from '@sinclair/typebox';
import { evt } from './subjects.ts';

/**
 * A fire-and-forget event on the bus: its subject and the schema of its payload, so
 * publishers and subscribers name it by constant and validate the same shape.
 */
export interface BusEvent<P extends TSchema = TSchema> {
  readonly subject: string;
  readonly payload: P;
}

export type BusEventPayload<E extends BusEvent> = Static<E['payload']>;

export function busEvent<P extends TSchema>(domain: string, event: string, payload: P): BusEvent<P> {
  return { subject: evt(domain, event), payload };
}
