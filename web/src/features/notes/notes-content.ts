// Stored notes come in three shapes: HTML written by the notes drawer's rich-text
// editor, raw rich-text JSON with `blocks` (older editors), and markdown or plain text
// written on the notes page.

export type NotesContent =
  | { kind: 'empty' }
  | { kind: 'html'; html: string }
  | { kind: 'blocks'; text: string }
  | { kind: 'markdown'; text: string };

/** Tags the drawer's editor writes at the top level; markdown never starts with one. */
const HTML_START =
  /^<(p|h[1-6]|ul|ol|li|blockquote|pre|div|br|hr|strong|em|b|i|s|code|a|span)(\s[^>]*)?\/?>/i;

interface RawBlock {
  text?: unknown;
  data?: { text?: unknown; items?: unknown };
}

function stripTags(value: string): string {
  return value
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<[^>]*>/g, '')
    .replace(/&nbsp;/g, ' ')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}

function blockText(block: RawBlock): string {
  if (typeof block.text === 'string') return block.text;
  if (block.data && typeof block.data.text === 'string') return stripTags(block.data.text);
  if (block.data && Array.isArray(block.data.items)) {
    return block.data.items
      .map((item: unknown) =>
        typeof item === 'string'
          ? stripTags(item)
          : stripTags(String((item as { content?: unknown })?.content ?? '')),
      )
      .join('\n');
  }
  return '';
}

/** Raw rich-text JSON ({ blocks: [...] }) as plain text, one block per line; null when not such JSON. */
export function blocksToPlainText(content: string): string | null {
  const trimmed = content.trim();
  if (!trimmed.startsWith('{')) return null;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    if (!parsed || typeof parsed !== 'object' || !Array.isArray((parsed as { blocks?: unknown }).blocks)) {
      return null;
    }
    return ((parsed as { blocks: unknown[] }).blocks as RawBlock[])
      .map((block) => (block && typeof block === 'object' ? blockText(block) : ''))
      .join('\n');
  } catch {
    return null;
  }
}

function isHtmlNotes(content: string): boolean {
  return HTML_START.test(content.trim());
}

export function classifyNotes(content: string | null | undefined): NotesContent {
  const value = content ?? '';
  if (!value.trim()) return { kind: 'empty' };
  if (isHtmlNotes(value)) return { kind: 'html', html: value };
  const blocks = blocksToPlainText(value);
  if (blocks !== null) return blocks.trim() ? { kind: 'blocks', text: blocks } : { kind: 'empty' };
  return { kind: 'markdown', text: value };
}

function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Plain text as editor paragraphs: one per line, blank lines kept as empty paragraphs. */
export function plainTextToHtml(text: string): string {
  return text
    .split('\n')
    .map((line) => `<p>${escapeHtml(line)}</p>`)
    .join('');
}

/**
 * What the drawer's editor starts from: HTML as is, markdown (saved by older notes pages)
 * converted to HTML by `toHtml`, raw blocks as paragraphs of their text.
 */
export function notesToEditorHtml(
  content: string | null | undefined,
  toHtml: (markdown: string) => string = plainTextToHtml,
): string {
  const notes = classifyNotes(content);
  switch (notes.kind) {
    case 'empty':
      return '';
    case 'html':
      return notes.html;
    case 'blocks':
      return plainTextToHtml(notes.text);
    case 'markdown':
      return toHtml(notes.text);
  }
}

/**
 * What the notes page's textarea starts from: markdown. HTML goes through `toMarkdown`,
 * raw blocks become their text, markdown stays as it is.
 */
export function notesToMarkdown(
  content: string | null | undefined,
  toMarkdown: (html: string) => string,
): string {
  const notes = classifyNotes(content);
  switch (notes.kind) {
    case 'empty':
      return '';
    case 'html':
      return toMarkdown(notes.html);
    case 'blocks':
    case 'markdown':
      return notes.text;
  }
}
