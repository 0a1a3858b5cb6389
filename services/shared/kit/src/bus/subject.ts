import { ServiceError } from '../errors.ts';

/**
 * Subject grammar shared by both bus implementations, so that the in-process bus accepts
 * and matches exactly what NATS does: dot-separated non-empty tokens without whitespace;
 * in subscriptions `*` (a whole token) matches one token and `>` (the last token) matches
 * one or more trailing tokens.
 */

const WHITESPACE = /\s/;
const NO_WILDCARDS = { wildcards: false } as const;
const MAX_CHECKED_SUBJECTS = 10_000;

/** True when `subject` is well formed; wildcards only where `wildcards` is set (subscriptions, filters). */
export function isValidSubject(subject: string, opts: { wildcards: boolean }): boolean {
  if (typeof subject !== 'string' || subject.length === 0 || WHITESPACE.test(subject)) return false;
  const tokens = subject.split('.');
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.length === 0) return false;
    if (t === '*' || t === '>') {
      if (!opts.wildcards) return false;
      if (t === '>' && i !== tokens.length - 1) return false;
    }
  }
  return true;
}

/**
 * Throws when the subject is malformed. A bad subject is a bug in the calling service, not
 * something its user did, hence `internal` rather than `bad_request`.
 */
function assertSubject(subject: string, opts: { wildcards: boolean }): void {
  if (!isValidSubject(subject, opts)) {
    const what = opts.wildcards ? 'subject' : 'subject (no wildcards allowed here)';
    throw new ServiceError('internal', `Invalid ${what}: ${JSON.stringify(subject)}`);
  }
}

/** Does `subject` (concrete) match `pattern` (may contain `*` and `>`)? */
export function matchSubject(pattern: string, subject: string): boolean {
  if (pattern === subject) return true;
  const p = pattern.split('.');
  const s = subject.split('.');
  for (let i = 0; i < p.length; i++) {
    const t = p[i]!;
    if (t === '>') return s.length > i;
    if (i >= s.length) return false;
    if (t !== '*' && t !== s[i]) return false;
  }
  return p.length === s.length;
}

/**
 * Can some concrete subject match both patterns? JetStream refuses two streams whose
 * subjects overlap (a message must belong to one stream), and so does the in-process bus.
 */
export function subjectsOverlap(a: string, b: string): boolean {
  const x = a.split('.');
  const y = b.split('.');
  for (let i = 0; ; i++) {
    const endX = i >= x.length;
    const endY = i >= y.length;
    if (endX || endY) return endX && endY;
    const tx = x[i]!;
    const ty = y[i]!;
    // `>` swallows one or more tokens, and the other side has at least the token at i.
    if (tx === '>' || ty === '>') return true;
    if (tx !== '*' && ty !== '*' && tx !== ty) return false;
  }
}

/** JetStream names (streams, consumers, buckets) allow only these characters. */
export function sanitizeName(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9_-]/g, '_');
  if (clean.length === 0) throw new ServiceError('internal', 'Empty name for a stream, consumer or bucket');
  return clean;
}

/**
 * The namespace of one deployment (or one test run) on a shared server: every subject,
 * stream, durable and bucket is prefixed here, and prefixes are removed again before a
 * caller sees a subject or stream name.
 */
export class BusNamespace {
  readonly prefix: string;
  /** The prefix as a name component (`chronicler.dev` becomes `chronicler_dev`). */
  private readonly namePrefix: string;

  constructor(prefix: string) {
    if (!isValidSubject(prefix, { wildcards: false })) {
      throw new ServiceError(
        'internal',
        `Invalid bus prefix ${JSON.stringify(prefix)}: use letters, digits, _ and -`,
      );
    }
    this.prefix = prefix;
    this.namePrefix = sanitizeName(prefix);
  }

  /** Concrete subjects already checked, with their full form: publishing checks each message's. */
  private readonly checked = new Map<string, string>();

  /** `<prefix>.<subject>`; validates the subject (wildcards only when allowed). */
  subject(subject: string, opts: { wildcards: boolean } = NO_WILDCARDS): string {
    if (!opts.wildcards) {
      const full = this.checked.get(subject);
      if (full !== undefined) return full;
    }
    assertSubject(subject, opts);
    const full = `${this.prefix}.${subject}`;
    if (!opts.wildcards) {
      // live subjects carry a transcript id: bounded so a long-running process does not grow
      if (this.checked.size >= MAX_CHECKED_SUBJECTS) this.checked.clear();
      this.checked.set(subject, full);
    }
    return full;
  }

  /** The caller's subject for a prefixed one (a subject outside the namespace is returned as is). */
  strip(fullSubject: string): string {
    const head = `${this.prefix}.`;
    return fullSubject.startsWith(head) ? fullSubject.slice(head.length) : fullSubject;
  }

  /** `<prefix>_<name>`, with only [A-Za-z0-9_-]. */
  stream(name: string): string {
    return `${this.namePrefix}_${sanitizeName(name)}`;
  }

  /** The caller's stream name for a prefixed one. */
  streamName(fullName: string): string {
    const head = `${this.namePrefix}_`;
    return fullName.startsWith(head) ? fullName.slice(head.length) : fullName;
  }

  durable(name: string): string {
    return `${this.namePrefix}_${sanitizeName(name)}`;
  }

  bucket(name: string): string {
    return `${this.namePrefix}_${sanitizeName(name)}`;
  }
}
