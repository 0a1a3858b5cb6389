import { describe, expect, it } from 'vitest';
import { ContentCache, etagOf, etagVersion } from './content-cache.ts';

describe('ContentCache', () => {
  it('keeps a copy, not a view of the buffer the reply came in', () => {
    const cache = new ContentCache({ maxBytes: 1000, idleMs: 60_000 });
    const socketRead = Buffer.from('xx{"id":"a"}yy');
    cache.hold('u', 'a', '1.0', socketRead.subarray(2, 12));
    socketRead.fill(0);
    expect(cache.get('u', 'a')?.body.toString()).toBe('{"id":"a"}');
    expect(cache.get('v', 'a')).toBeUndefined();
  });

  it('holds at most maxBytes, dropping the least recently read first, and nothing when 0', () => {
    const cache = new ContentCache({ maxBytes: 250, idleMs: 60_000 });
    const body = (c: string) => c.repeat(100);
    cache.hold('u', 'a', '1.0', body('a'));
    cache.hold('u', 'b', '1.0', body('b'));
    expect(cache.get('u', 'a')?.version).toBe('1.0');
    cache.hold('u', 'c', '1.0', body('c'));
    expect(cache.bytes).toBeLessThanOrEqual(250);
    expect(cache.get('u', 'b')).toBeUndefined();
    expect(cache.get('u', 'a')).toBeDefined();
    // Larger than the whole cache: answered, not kept.
    expect(cache.hold('u', 'd', '1.0', body('d').repeat(3)).body.byteLength).toBe(300);
    expect(cache.get('u', 'd')).toBeUndefined();
    cache.drop('u', 'a');
    expect(cache.get('u', 'a')).toBeUndefined();

    const none = new ContentCache({ maxBytes: 0, idleMs: 60_000 });
    none.hold('u', 'a', '1.0', 'x');
    expect(none.get('u', 'a')).toBeUndefined();
  });
});

describe('ETags', () => {
  it('reads back the versions it writes, weak or strong, and nothing else', () => {
    expect(etagVersion(etagOf('123.0'))).toBe('123.0');
    expect(etagVersion('"9.1"')).toBe('9.1');
    expect(etagVersion(etagOf('9f86d081884c7d659a2feaa0c55ad015'))).toBe('9f86d081884c7d659a2feaa0c55ad015');
    expect(etagVersion('"a-b", W/"7.0"')).toBe('7.0');
    for (const other of [undefined, '', '*', '"a-b"', '"a b"', 'W/"1.0', `"${'1'.repeat(65)}"`]) {
      expect(etagVersion(other)).toBeUndefined();
    }
  });
});
