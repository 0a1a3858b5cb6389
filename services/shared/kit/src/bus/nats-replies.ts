import { createInbox, type Msg, type MsgHdrs, type NatsConnection } from 'nats';
import type { Outbox } from './nats-outbox.ts';

/** Why a request got no reply: no subscriber on its subject, or none in time, or the bus closed. */
export type RequestFailure = 'no-responders' | 'timeout' | 'closed';

export class RequestFailed extends Error {
  constructor(readonly reason: RequestFailure) {
    super(`request failed: ${reason}`);
  }
}

interface Waiter {
  resolve: (msg: Msg) => void;
  reject: (err: unknown) => void;
  timer: NodeJS.Timeout;
}

/**
 * Request/reply over one wildcard inbox subscription per connection, as nats.js's own
 * request() does, without its cost on the hot path: nats.js settles every answered request by
 * rejecting its already-resolved promise with a fresh NatsError, whose stack capture was 3% of
 * a loaded gateway's CPU, and allocates a timeout promise and a deferred per request. Here a
 * request is a token, a timer and the two callbacks of its promise.
 *
 * The server answers a request that no subscriber took with an empty 503 status message
 * (NATS "no responders", on since the connection announces headers), as nats.js expects too.
 */
export class ReplyMux {
  readonly #prefix: string;
  readonly #waiting = new Map<string, Waiter>();
  #next = 0;

  /** `outbox`: the connection's batch of requests and replies (see Outbox); none sends at once. */
  constructor(
    private readonly nc: NatsConnection,
    private readonly outbox?: Outbox,
  ) {
    this.#prefix = `${createInbox()}.`;
    nc.subscribe(`${this.#prefix}*`, {
      callback: (err, msg) => {
        if (!err) this.#deliver(msg);
      },
    });
    void nc.closed().then(() => this.#failAll('closed'));
  }

  request(subject: string, data: Uint8Array, timeoutMs: number, headers?: MsgHdrs): Promise<Msg> {
    const token = (this.#next++).toString(36);
    return new Promise<Msg>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiting.delete(token);
        reject(new RequestFailed('timeout'));
      }, timeoutMs);
      this.#waiting.set(token, { resolve, reject, timer });
      const send = (): void => {
        try {
          this.nc.publish(subject, data, { reply: this.#prefix + token, ...(headers ? { headers } : {}) });
        } catch (err) {
          clearTimeout(timer);
          this.#waiting.delete(token);
          reject(err);
        }
      };
      if (this.outbox) this.outbox.send(send);
      else send();
    });
  }

  /** Requests waiting for their reply (for tests: none may be left behind). */
  get pending(): number {
    return this.#waiting.size;
  }

  #deliver(msg: Msg): void {
    const token = msg.subject.slice(this.#prefix.length);
    const waiter = this.#waiting.get(token);
    if (!waiter) return; // timed out already, or a second reply
    this.#waiting.delete(token);
    clearTimeout(waiter.timer);
    if (msg.data.length === 0 && msg.headers?.code === 503) waiter.reject(new RequestFailed('no-responders'));
    else waiter.resolve(msg);
  }

  #failAll(reason: RequestFailure): void {
    for (const [token, waiter] of this.#waiting) {
      this.#waiting.delete(token);
      clearTimeout(waiter.timer);
      waiter.reject(new RequestFailed(reason));
    }
  }
}
