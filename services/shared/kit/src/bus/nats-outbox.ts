/**
 * The requests and replies of one NATS connection, handed to nats.js together once per turn
 * of the event loop.
 *
 * nats.js writes its buffer to the socket at the end of the current microtask queue, so every
 * request a gateway sends for an HTTP request, and every reply a service sends when its
 * database answers, was one socket write of its own: under load, the writes were a third of
 * a service's CPU (the transcript service's profile: 34%), and ate most of what the bus adds
 * to a request. Queued until setImmediate, the check phase of the same loop turn (after the
 * poll phase that delivered the HTTP requests or database results), they leave in one write.
 *
 * Order is kept among what goes through the outbox. Publishes do not (they are already
 * batched by the caller's loop and must stay as cheap as nats.js's own), so a publish can
 * overtake a request or reply queued earlier in the same turn; NATS gives no order between
 * different subscribers anyway.
 */
export class Outbox {
  #queue: (() => void)[] = [];
  #scheduled = false;

  /** Runs `send` (which must not throw) in this turn's batch. */
  send(send: () => void): void {
    this.#queue.push(send);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.flush);
    }
  }

  /** Hands everything queued to nats.js now (before a drain, or a flush that must include it). */
  readonly flush = (): void => {
    this.#scheduled = false;
    const queue = this.#queue;
    if (queue.length === 0) return;
    this.#queue = [];
    for (const send of queue) send();
  };

  /** Sends waiting for this turn's batch. */
  get size(): number {
    return this.#queue.length;
  }
}
