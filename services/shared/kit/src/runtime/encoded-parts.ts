import { EncodedJson } from '../bus/codec.ts';
import { ServiceError } from '../errors.ts';

// The parts of a reply that a caller passes on as the JSON text they came in (the gateway
// answering a browser), found by their place in the text instead of by parsing it. The kit's
// `serve` serialises a handler's result with JSON.stringify, which keeps the keys in the order
// the handler wrote them: a reply built with the fixed part first and the large part last has
// the large part's text between a known head and a known tail. A reply in any other form
// (keys in another order, values outside the expected alphabet) is parsed instead, so these
// never misread one; they only save the parse when the form is the usual one.

/** What a page reply (`pageOf`: `{ items, next }`) begins with, and how its cursor ends it. */
const PAGE_ITEMS_KEY = '{"items":';
const PAGE_NEXT_KEY = ',"next":';
const PAGE_NEXT_TAIL = /^,"next":(null|"[A-Za-z0-9_-]*")\}$/;

/**
 * A page (`{ items, next }`): its cursor, and its items as the JSON text of their array. A page
 * built as `{ items, next }` ends with its cursor, which is null or base64url: the items are the
 * text between, found without reading them. `what` names the reply in an error.
 */
export function splitPage(json: EncodedJson, what: string): { items: EncodedJson; next: string | null } {
  const text = json.text;
  const at = text.lastIndexOf(PAGE_NEXT_KEY);
  if (at > 0 && text.startsWith(`${PAGE_ITEMS_KEY}[`) && text[at - 1] === ']') {
    const tail = PAGE_NEXT_TAIL.exec(text.slice(at));
    if (tail) {
      const next = tail[1] === 'null' ? null : tail[1]!.slice(1, -1);
      return { items: new EncodedJson(text.slice(PAGE_ITEMS_KEY.length, at)), next };
    }
  }
  const page = JSON.parse(text) as { items?: unknown; next?: unknown };
  if (!Array.isArray(page.items) || (page.next !== null && typeof page.next !== 'string')) {
    throw new ServiceError('internal', `${what} is not a page`);
  }
  return { items: new EncodedJson(JSON.stringify(page.items)), next: page.next };
}

/**
 * A reply to a read that names the version its caller holds: `{ version, unchanged: true }`,
 * or `{ version, [field]: value }` with the value as the JSON text it came in (an object).
 * The version is null or a short token of letters, digits and dots.
 */
export type VersionedParts =
  { version: string | null; unchanged: true } | { version: string | null; value: EncodedJson };

const VERSION_KEY = '{"version":';
const UNCHANGED_TAIL = ',"unchanged":true}';
const VERSION_VALUE = /^(null|"[0-9A-Za-z.]{1,64}")/;
/** How far into a reply its head (the version and the next key) lies. */
const HEAD_CHARS = 128;

/**
 * The parts of a versioned reply (`VersionedParts`): the version first, so that the value's
 * JSON is the text after it, passed on without being parsed (as bytes when it came as bytes).
 * `what` names the reply in an error.
 */
export function splitVersioned(json: EncodedJson, field: string, what: string): VersionedParts {
  const body = json.body;
  const head =
    typeof body === 'string' ? body.slice(0, HEAD_CHARS) : body.subarray(0, HEAD_CHARS).toString('latin1');
  if (head.startsWith(VERSION_KEY)) {
    const value = VERSION_VALUE.exec(head.slice(VERSION_KEY.length));
    if (value) {
      const version = value[1] === 'null' ? null : value[1]!.slice(1, -1);
      const at = VERSION_KEY.length + value[1]!.length;
      const rest = head.slice(at);
      if (rest === UNCHANGED_TAIL) return { version, unchanged: true };
      const key = `,${JSON.stringify(field)}:`;
      const last = typeof body === 'string' ? body.charCodeAt(body.length - 1) : body[body.length - 1];
      if (rest.startsWith(`${key}{`) && last === 0x7d) {
        const from = at + key.length;
        const text = typeof body === 'string' ? body.slice(from, -1) : body.subarray(from, body.length - 1);
        return { version, value: new EncodedJson(text) };
      }
    }
  }
  const parsed = JSON.parse(json.text) as Record<string, unknown>;
  const version = typeof parsed.version === 'string' ? parsed.version : null;
  if (parsed.unchanged === true) return { version, unchanged: true };
  const value = parsed[field];
  if (typeof value !== 'object' || value === null) {
    throw new ServiceError('internal', `${what} holds neither ${field} nor unchanged`);
  }
  return { version, value: new EncodedJson(JSON.stringify(value)) };
}
