import { describe, expect, it } from 'vitest';
import { EncodedJson } from '../bus/codec.ts';
import { splitPage, splitVersioned } from './encoded-parts.ts';

const transcript = { id: 'a', name: 'Tavern 🍺', content: 'GM: Ні.\nAria: "Yes"}' };
const WHAT = 'Reply of svc.test';

describe('splitVersioned', () => {
  it("finds the value's JSON after the version, in text and in bytes, without changing a byte", () => {
    const text = JSON.stringify({ version: '123.0', transcript });
    for (const json of [new EncodedJson(text), new EncodedJson(Buffer.from(text, 'utf8'))]) {
      const answer = splitVersioned(json, 'transcript', WHAT);
      expect(answer).toMatchObject({ version: '123.0' });
      if (!('value' in answer)) throw new Error('expected a value');
      expect(answer.value.text).toBe(JSON.stringify(transcript));
      expect(JSON.parse(answer.value.text)).toEqual(transcript);
    }
  });

  it('reads unchanged, a null version, a digest version, and a reply in another key order', () => {
    expect(splitVersioned(new EncodedJson('{"version":"9.1","unchanged":true}'), 'transcript', WHAT)).toEqual(
      {
        version: '9.1',
        unchanged: true,
      },
    );
    const live = splitVersioned(
      new EncodedJson(JSON.stringify({ version: null, transcript })),
      'transcript',
      WHAT,
    );
    expect(live).toMatchObject({ version: null });
    const page = { items: [transcript], next: null };
    const digest = splitVersioned(new EncodedJson(JSON.stringify({ version: 'ab12f0', page })), 'page', WHAT);
    expect(digest).toMatchObject({ version: 'ab12f0' });
    expect('value' in digest && digest.value.text).toBe(JSON.stringify(page));
    const reordered = splitVersioned(
      new EncodedJson(JSON.stringify({ transcript, version: '7.0' })),
      'transcript',
      WHAT,
    );
    expect(reordered).toMatchObject({ version: '7.0' });
    expect('value' in reordered && JSON.parse(reordered.value.text)).toEqual(transcript);
  });

  it('never takes another field for the one asked for, and refuses a reply with neither', () => {
    // A reply whose value sits under another name is parsed, and found to hold neither.
    const other = new EncodedJson(JSON.stringify({ version: '1.0', page: { items: [], next: null } }));
    expect(() => splitVersioned(other, 'transcript', WHAT)).toThrow(/neither transcript nor unchanged/);
    expect(() => splitVersioned(new EncodedJson('{"version":"1.0"}'), 'transcript', WHAT)).toThrow(/neither/);
    // A version outside the alphabet is read by parsing, not by its place.
    const odd = splitVersioned(
      new EncodedJson(JSON.stringify({ version: 'a"b', transcript })),
      'transcript',
      WHAT,
    );
    expect(odd).toMatchObject({ version: 'a"b' });
  });
});

describe('splitPage', () => {
  it('gives the cursor and the items text, even when an item looks like the end of a page', () => {
    const items = [{ name: '],"next":null}' }, { name: ',"next":"x"}' }];
    for (const next of [null, 'b64_-Cursor']) {
      const page = splitPage(new EncodedJson(JSON.stringify({ items, next })), WHAT);
      expect([JSON.parse(page.items.text), page.next]).toEqual([items, next]);
    }
    const reordered = splitPage(new EncodedJson(JSON.stringify({ next: 'c', items })), WHAT);
    expect([JSON.parse(reordered.items.text), reordered.next]).toEqual([items, 'c']);
    expect(() => splitPage(new EncodedJson('{"items":3,"next":null}'), WHAT)).toThrow(/is not a page/);
  });
});
