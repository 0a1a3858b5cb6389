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

describe('a conditional read', () => {
  const counted: string[] = [];
  const count = (r: string) => counted.push(r);

  it("keeps what came first, sends what it holds when unchanged, and 304 for the browser's own version", () => {
    counted.length = 0;
    const cache = new ContentCache({ maxBytes: 1000, idleMs: 60_000 });
    const first = cache.begin('u', 'p', undefined);
    expect(first.known).toBeUndefined();
    expect(cache.settle(first, '1', { body: '[1]', next: 'c1' }, count)).toMatchObject({ next: 'c1' });

    // The gateway names its version; the service says unchanged; the held bytes and cursor go out.
    const again = cache.begin('u', 'p', undefined);
    expect(again.known).toBe('1');
    expect(cache.settle(again, '1', undefined, count)?.body.toString()).toBe('[1]');
    // The browser holds that version: 304 whether the service said unchanged or sent it anew.
    expect(cache.settle(cache.begin('u', 'p', etagOf('1')), '1', undefined, count)).toBeNull();
    const other = new ContentCache({ maxBytes: 1000, idleMs: 60_000 });
    const browserOnly = other.begin('u', 'p', etagOf('1'));
    expect(browserOnly.known).toBe('1');
    expect(other.settle(browserOnly, '1', { body: '[1]' }, count)).toBeNull();
    expect(other.get('u', 'p')?.version).toBe('1');

    // A write: the new version is kept and sent.
    expect(
      cache
        .settle(cache.begin('u', 'p', etagOf('1')), '2', { body: '[2]', next: null }, count)
        ?.body.toString(),
    ).toBe('[2]');
    expect(cache.get('u', 'p')).toMatchObject({ version: '2', next: null });
    expect(counted).toEqual(['first', 'unchanged', 'not_modified', 'not_modified', 'changed']);
  });

  it('refuses an unchanged answer for a version it did not name', () => {
    const cache = new ContentCache({ maxBytes: 1000, idleMs: 60_000 });
    cache.hold('u', 'p', '1', '[1]');
    expect(() => cache.settle(cache.begin('u', 'p', undefined), '2', undefined, count)).toThrow(
      /not asked about/,
    );
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
