import { EncodedJson } from '@chronicler/kit';
import { describe, expect, it } from 'vitest';
import { ContentCache, etagOf, etagVersion, splitVersioned } from './content-cache.ts';

const transcript = { id: 'a', name: 'Tavern 🍺', content: 'GM: Ні.\nAria: "Yes"}' };

describe('splitVersioned', () => {
  it("finds the transcript's JSON after the version, in text and in bytes, without changing a byte", () => {
    const text = JSON.stringify({ version: '123.0', transcript });
    for (const json of [new EncodedJson(text), new EncodedJson(Buffer.from(text, 'utf8'))]) {
      const answer = splitVersioned(json);
      expect(answer).toMatchObject({ version: '123.0' });
      if (!('transcript' in answer)) throw new Error('expected a transcript');
      expect(answer.transcript.text).toBe(JSON.stringify(transcript));
      expect(JSON.parse(answer.transcript.text)).toEqual(transcript);
    }
  });

  it('reads unchanged, a null version, and a reply in another key order', () => {
    expect(splitVersioned(new EncodedJson('{"version":"9.1","unchanged":true}'))).toEqual({
      version: '9.1',
      unchanged: true,
    });
    const live = splitVersioned(new EncodedJson(JSON.stringify({ version: null, transcript })));
    expect(live).toMatchObject({ version: null });
    const reordered = splitVersioned(new EncodedJson(JSON.stringify({ transcript, version: '7.0' })));
    expect(reordered).toMatchObject({ version: '7.0' });
    expect('transcript' in reordered && JSON.parse(reordered.transcript.text)).toEqual(transcript);
    expect(() => splitVersioned(new EncodedJson('{"version":"1.0"}'))).toThrow(/neither/);
  });
});

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
    expect(etagVersion('"abc", W/"7.0"')).toBe('7.0');
    for (const other of [undefined, '', '*', '"abc"', 'W/"1.0', `"${'1'.repeat(65)}"`]) {
      expect(etagVersion(other)).toBeUndefined();
    }
  });
});
