import { contentCacheBytes, ServiceError } from '@chronicler/kit';
import { LRUCache } from 'lru-cache';

/**
 * A session's JSON (or a page of the list's) as the gateway last sent it, the version the
 * transcript service gave it, and for a page the cursor of the next.
 */
export interface HeldContent {
  version: string;
  body: Buffer;
  next?: string | null;
}

export interface ContentCacheOptions {
  /** The most bytes of JSON held; the least recently read go first. */
  maxBytes: number;
  /** How long an entry may go unread before it is dropped (ms). */
  idleMs: number;
}

/** How a conditional read ended, as the gateway's read counters name it. */
export type ReadResult = 'first' | 'changed' | 'unchanged' | 'not_modified';

/** A conditional read under way: what this gateway and the browser hold of one key. */
export interface ConditionalRead {
  ownerId: string;
  key: string;
  held: HeldContent | undefined;
  /** The version the browser named in If-None-Match, if it is one of ours. */
  browserHas: string | undefined;
  /** The version to name to the transcript service: the gateway's, else the browser's. */
  known: string | undefined;
}

/**
 * The sessions and pages of the session list this gateway read lately, as the JSON bytes it
 * answered with, by owner and key (a session's id, or a key naming the page and its filters;
 * issue 46). A hit is never served on its own: every read asks the transcript service whether
 * the version held is still the stored one (after the same owner check as a read), and only
 * an `unchanged` answer sends the held bytes. What it saves is the content crossing the bus
 * and being read from PostgreSQL, not a check: a write anywhere (another gateway, the summary
 * service, a line edit) is seen by the next read. An entry unread for `idleMs` is dropped, so
 * a deleted session's text does not stay in memory for long either.
 */
export class ContentCache {
  private readonly entries: LRUCache<string, HeldContent>;
  private readonly maxBytes: number;

  constructor(opts: ContentCacheOptions) {
    this.maxBytes = opts.maxBytes;
    this.entries = new LRUCache<string, HeldContent>({
      maxSize: Math.max(1, opts.maxBytes),
      sizeCalculation: (e) => Math.max(1, e.body.byteLength),
      ttl: opts.idleMs,
      updateAgeOnGet: true,
      // Every way out (evicted for room, idle, replaced, dropped) updates the gauge.
      disposeAfter: () => this.measure(),
    });
  }

  private measure(): void {
    contentCacheBytes.set(this.bytes);
  }

  get(ownerId: string, id: string): HeldContent | undefined {
    return this.entries.get(keyOf(ownerId, id));
  }

  /**
   * Keeps a copy of `body` under `version` (a reply read from the bus may be a view into a
   * larger socket buffer, which must not stay alive with it); one larger than the cache is not kept.
   */
  hold(
    ownerId: string,
    id: string,
    version: string,
    body: string | Buffer,
    next?: string | null,
  ): HeldContent {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
    const held = next === undefined ? { version, body: bytes } : { version, body: bytes, next };
    if (this.maxBytes > 0 && bytes.byteLength <= this.maxBytes) {
      this.entries.set(keyOf(ownerId, id), held);
      this.measure();
    }
    return held;
  }

  /** Starts a conditional read of `key`, given the request's If-None-Match. */
  begin(ownerId: string, key: string, ifNoneMatch: string | undefined): ConditionalRead {
    const held = this.get(ownerId, key);
    const browserHas = etagVersion(ifNoneMatch);
    return { ownerId, key, held, browserHas, known: held?.version ?? browserHas };
  }

  /**
   * Ends a conditional read with the service's answer: `version`, and `fresh` content unless
   * the service said the known version is unchanged. Returns what to send, or null when the
   * browser already has this version (answer 304); `count` hears how the read ended.
   */
  settle(
    read: ConditionalRead,
    version: string,
    fresh: { body: string | Buffer; next?: string | null } | undefined,
    count: (result: ReadResult) => void,
  ): HeldContent | null {
    let sent: HeldContent;
    if (fresh === undefined) {
      checkUnchanged(version, read.known);
      sent = read.held!;
    } else {
      sent = this.hold(read.ownerId, read.key, version, fresh.body, fresh.next);
    }
    if (version === read.browserHas) {
      count('not_modified');
      return null;
    }
    count(fresh === undefined ? 'unchanged' : read.held ? 'changed' : 'first');
    return sent;
  }

  drop(ownerId: string, id: string): void {
    this.entries.delete(keyOf(ownerId, id));
  }

  /** Bytes held now. */
  get bytes(): number {
    return this.entries.calculatedSize;
  }
}

const keyOf = (ownerId: string, id: string): string => `${ownerId}/${id}`;

/** A version as an ETag: weak, since compression changes the bytes of one version. */
export const etagOf = (version: string): string => `W/"${version}"`;

/**
 * The version a browser holds, from its If-None-Match (one of our ETags, weak or strong, or the
 * first of a list that holds one); undefined for none or anything else.
 */
export function etagVersion(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const tag of header.split(',')) {
    const m = /^\s*(?:W\/)?"([0-9A-Za-z.]{1,64})"\s*$/.exec(tag);
    if (m) return m[1];
  }
  return undefined;
}

/** An `unchanged` answer is only ever right for the version the gateway named. */
function checkUnchanged(version: string | null, known: string | undefined): void {
  if (version !== known) {
    throw new ServiceError(
      'internal',
      'The transcript service answered unchanged to a version not asked about',
    );
  }
}
