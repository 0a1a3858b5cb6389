import { describe, expect, it } from 'vitest';
import { silentLogger } from './util.ts';
import { EncodedJson } from './codec.ts';
import { EncodedReply, okReply, replyText, unwrapEncodedReply, unwrapReply } from './reply.ts';

describe('a reply whose result is JSON already', () => {
  // Short, just under and over the size it writes itself, and long with text in several scripts.
  const results = [
    JSON.stringify({ id: 'a', name: 'Short' }),
    JSON.stringify({ content: 'x'.repeat(16 * 1024 - 20) }),
    JSON.stringify({ content: 'GM: You enter the tavern.\n'.repeat(700) }),
    JSON.stringify({ content: 'Élodie: ¿Dónde está el dragón? 🐉 龍がいる。\n'.repeat(20_000) }),
  ];

  it('is the same bytes as the joined envelope, from text or from bytes', () => {
    for (const json of results) {
      const joined = Buffer.from(`{"ok":true,"data":${json}}`, 'utf8');
      for (const result of [new EncodedJson(json), new EncodedJson(Buffer.from(json, 'utf8'))]) {
        const reply = okReply(result, 'svc.test', silentLogger);
        expect(reply).toBeInstanceOf(EncodedReply);
        expect(Buffer.compare(Buffer.from((reply as EncodedReply).toBytes()), joined)).toBe(0);
        expect(replyText(reply)).toBe(joined.toString('utf8'));
      }
    }
  });

  it('reads back as the result it carried, parsed or passed on', () => {
    const json = results[3]!;
    const bytes = (okReply(new EncodedJson(json), 'svc.test', silentLogger) as EncodedReply).toBytes();
    expect(unwrapEncodedReply(bytes, 'svc.test')!.text).toBe(json);
    expect(unwrapReply(Buffer.from(bytes).toString('utf8'), 'svc.test')).toEqual(JSON.parse(json));
  });
});
