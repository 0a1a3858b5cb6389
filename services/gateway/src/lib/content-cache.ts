import { EncodedJson, ServiceError } from '@chronicler/kit';
import { LRUCache } from 'lru-cache';

/** A session's JSON as the gateway last sent it, and the version the transcript service gave it. */
export interface HeldContent {
  version: string;
  body: Buffer;
}

/** What svc.transcript.get-if-changed answered, its transcript left as the JSON it came in. */
export type VersionedReply =
  { version: string | null; unchanged: true } | { version: string | null; transcript: EncodedJson };

export interface ContentCacheOptions {
  /** The most bytes of JSON held; the least recently read go first. */
  maxBytes: number;
  /** How long an entry may go unread before it is dropped (ms). */
  idleMs: number;
}

/**
 * The sessions this gateway read lately, as the JSON bytes it answered with, by owner and id
 * (issue 46). A hit is never served on its own: every read asks the transcript service
 * whether the version held is still the stored one (after the same owner check as a read),
 * and only an `unchanged` answer sends the held bytes. What it saves is the content crossing
 * the bus and being read from PostgreSQL, not a check: a write anywhere (another gateway, the
 * summary service, a line edit) is seen by the next read. An entry unread for `idleMs` is
 * dropped, so a deleted session's text does not stay in memory for long either.
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
    });
  }

  get(ownerId: string, id: string): HeldContent | undefined {
    return this.entries.get(keyOf(ownerId, id));
  }

  /**
   * Keeps a copy of `body` under `version` (a reply read from the bus may be a view into a
   * larger socket buffer, which must not stay alive with it); one larger than the cache is not kept.
   */
  hold(ownerId: string, id: string, version: string, body: string | Buffer): HeldContent {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
    const held = { version, body: bytes };
    if (this.maxBytes > 0 && bytes.byteLength <= this.maxBytes) this.entries.set(keyOf(ownerId, id), held);
    return held;
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
    const m = /^\s*(?:W\/)?"([0-9.]{1,64})"\s*$/.exec(tag);
    if (m) return m[1];
  }
  return undefined;
}

const VERSION_KEY = '{"version":';
const UNCHANGED_TAIL = ',"unchanged":true}';
const TRANSCRIPT_KEY = ',"transcript":';
/** A version as the transcript service writes it (a transaction id and a flag), or null. */
const VERSION_VALUE = /^(null|"[0-9.]{1,64}")/;

/**
 * The parts of a get-if-changed reply: the version first (so the transcript's JSON is the
 * text after it, passed on without being parsed), as the service's result serialises. A reply
 * in any other form is parsed and its transcript serialised again.
 */
export function splitVersioned(json: EncodedJson): VersionedReply {
  const body = json.body;
  const head = typeof body === 'string' ? body.slice(0, 96) : body.subarray(0, 96).toString('latin1');
  if (head.startsWith(VERSION_KEY)) {
    const value = VERSION_VALUE.exec(head.slice(VERSION_KEY.length));
    if (value) {
      const version = value[1] === 'null' ? null : value[1]!.slice(1, -1);
      const at = VERSION_KEY.length + value[1]!.length;
      const rest = head.slice(at);
      if (rest === UNCHANGED_TAIL) return { version, unchanged: true };
      const last = typeof body === 'string' ? body.charCodeAt(body.length - 1) : body[body.length - 1];
      if (rest.startsWith(`${TRANSCRIPT_KEY}{`) && last === 0x7d) {
        const from = at + TRANSCRIPT_KEY.length;
        const text = typeof body === 'string' ? body.slice(from, -1) : body.subarray(from, body.length - 1);
        return { version, transcript: new EncodedJson(text) };
      }
    }
  }
  const parsed = JSON.parse(json.text) as { version?: unknown; unchanged?: unknown; transcript?: unknown };
  const version = typeof parsed.version === 'string' ? parsed.version : null;
  if (parsed.unchanged === true) return { version, unchanged: true };
  if (typeof parsed.transcript !== 'object' || parsed.transcript === null) {
    throw new ServiceError(
      'internal',
      'svc.transcript.get-if-changed answered neither a transcript nor unchanged',
    );
  }
  return { version, transcript: new EncodedJson(JSON.stringify(parsed.transcript)) };
}
