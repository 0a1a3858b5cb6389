import {
  lineOfDelivery,
  type FanoutDelivery,
  type LiveLine,
  type liveJoinRpc,
  type RpcResponse,
} from '@chronicler/contracts';
import type { Subscription } from '@chronicler/kit';

export type JoinPage = RpcResponse<typeof liveJoinRpc>;

/** How long a read of the stored lines answers other joins of the same viewer and place (ms). */
const READ_SHARE_MS = 1_000;
/** Reads kept per session at once. */
const READS_KEPT = 64;
/** Lines heard on the session's subscription kept for joins (the newest). */
const RECENT_LINES = 1_000;

interface Deps {
  /** svc.transcript.live-join: the owner check and the stored lines after `afterSeq`. */
  read(ownerId: string, afterSeq: number): Promise<JoinPage>;
  /** live-fanout's recent window of the session; null when it could not be read. */
  window(afterSeq: number): Promise<LiveLine[] | null>;
}

/**
 * A live session this gateway holds (it has a viewer there, or a join under way): what its
 * joins share, so a storm of joins costs a few bus calls per session, not one per socket.
 * It exists only while subscribed to the session's deliveries, which is what makes sharing
 * safe: a read made after the subscription misses nothing that a later read would have, since
 * every line delivered from then on is heard here (`recent`), and every line delivered before
 * is stored or in live-fanout's window (read once, after the subscription).
 */
export class HeldSession {
  /** Joins under way. */
  joining = 0;
  sub: Subscription | undefined;
  private readonly reads = new Map<string, { at: number; page: Promise<JoinPage>; done?: JoinPage }>();
  private readonly recent = new Map<number, LiveLine>();
  private window: Promise<LiveLine[] | null> | undefined;

  constructor(
    readonly transcriptId: string,
    private readonly deps: Deps,
    private readonly now: () => number = Date.now,
  ) {}

  /** A delivery of the session, as it is emitted to the room. */
  heard(d: FanoutDelivery): void {
    const line = lineOfDelivery(d);
    if (!line) return;
    this.recent.delete(line.seq);
    this.recent.set(line.seq, line);
    if (this.recent.size > RECENT_LINES) this.recent.delete(this.recent.keys().next().value!);
  }

  /**
   * The stored lines after `afterSeq` as `ownerId` may read them (not_found for another
   * owner's): a read of the same owner within READ_SHARE_MS answers it, in flight or done;
   * a done one that was not cut (`more`) also answers any later place.
   */
  read(ownerId: string, afterSeq: number): Promise<JoinPage> {
    const now = this.now();
    for (const [key, r] of this.reads) if (now - r.at >= READ_SHARE_MS) this.reads.delete(key);
    const key = `${ownerId}\n${afterSeq}`;
    const same = this.reads.get(key);
    if (same) return same.page;
    for (const [k, r] of this.reads) {
      const [owner, after] = k.split('\n');
      if (owner === ownerId && r.done && !r.done.more && Number(after) <= afterSeq)
        return Promise.resolve({ ...r.done, lines: r.done.lines.filter((l) => l.seq > afterSeq) });
    }
    const entry: { at: number; page: Promise<JoinPage>; done?: JoinPage } = {
      at: now,
      page: this.deps.read(ownerId, afterSeq),
    };
    entry.page.then(
      (page) => (entry.done = page),
      () => this.reads.delete(key),
    );
    this.reads.set(key, entry);
    if (this.reads.size > READS_KEPT) this.reads.delete(this.reads.keys().next().value!);
    return entry.page;
  }

  /** The lines after `afterSeq` that came after the stored ones read: live-fanout's window and what was heard here. */
  async recentAfter(afterSeq: number): Promise<LiveLine[]> {
    this.window ??= this.deps.window(0);
    const window = await this.window;
    // Not read (live-fanout restarting): the next join asks again.
    if (window === null) this.window = undefined;
    const lines = new Map<number, LiveLine>();
    for (const l of window ?? []) if (l.seq > afterSeq) lines.set(l.seq, l);
    for (const l of this.recent.values()) if (l.seq > afterSeq) lines.set(l.seq, l);
    return [...lines.values()].sort((a, b) => a.seq - b.seq);
  }
}
