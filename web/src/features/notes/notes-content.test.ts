import { describe, expect, it } from 'vitest';
import { blocksToPlainText, classifyNotes, notesToEditorHtml, plainTextToHtml } from './notes-content.ts';

describe('stored notes: which of the three shapes they are', () => {
  it('treats missing and blank notes as empty', () => {
    expect(classifyNotes(null)).toEqual({ kind: 'empty' });
    expect(classifyNotes(undefined)).toEqual({ kind: 'empty' });
    expect(classifyNotes('  \n ')).toEqual({ kind: 'empty' });
  });

  it("recognises the drawer's HTML by its first tag, and keeps it as is", () => {
    const html = '<p>The party <strong>rested</strong>.</p>';
    expect(classifyNotes(`  ${html}`)).toEqual({ kind: 'html', html: `  ${html}` });
    expect(notesToEditorHtml(html)).toBe(html);
  });

  it('reads markdown that merely contains tags, or starts with an unknown one, as markdown', () => {
    expect(classifyNotes('# Session 1\n<b>bold</b>')).toEqual({
      kind: 'markdown',
      text: '# Session 1\n<b>bold</b>',
    });
    expect(classifyNotes('<script>alert(1)</script>').kind).toBe('markdown');
  });

  it('turns rich-text blocks into plain lines, list items and entities included', () => {
    const stored = JSON.stringify({
      blocks: [
        { type: 'header', data: { text: 'Loot &amp; <i>gold</i>' } },
        { type: 'list', data: { items: ['a sword', { content: 'a <b>shield</b>' }] } },
        { text: 'plain' },
        null,
      ],
    });
    expect(blocksToPlainText(stored)).toBe('Loot & gold\na sword\na shield\nplain\n');
    expect(classifyNotes(stored)).toEqual({
      kind: 'blocks',
      text: 'Loot & gold\na sword\na shield\nplain\n',
    });
  });

  it('does not take other JSON, or blocks without text, for notes with content', () => {
    expect(blocksToPlainText('{"blocks": "no"}')).toBeNull();
    expect(blocksToPlainText('{not json')).toBeNull();
    expect(classifyNotes('{"blocks": "no"}').kind).toBe('markdown');
    expect(classifyNotes('{"blocks": [{}]}')).toEqual({ kind: 'empty' });
  });

  it('gives the editor escaped paragraphs for text, one per line, blank lines kept', () => {
    expect(plainTextToHtml('a < b\n\n"c" & d')).toBe('<p>a &lt; b</p><p></p><p>&quot;c&quot; &amp; d</p>');
    expect(notesToEditorHtml('line 1\nline 2')).toBe('<p>line 1</p><p>line 2</p>');
    expect(notesToEditorHtml('')).toBe('');
  });
});
