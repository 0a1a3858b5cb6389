import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import ReactMarkdown from 'react-markdown';

// Notes are stored as HTML (the drawer's editor writes it). The notes page edits them as
// markdown in a plain textarea: HTML becomes markdown when the page loads it, and the
// page's markdown becomes HTML when it saves, so both screens read one format.

const STRUCTURED_LINE = /^\s*([-*+]\s|\d+[.)]\s|>|#|```|\||\s{4})/;

/**
 * Notes are written line by line: a line of plain text is its own paragraph, as it looked
 * in the textarea, where markdown would join it to the line before. Lists, quotes,
 * headings and code keep their markdown meaning.
 */
function linesAsParagraphs(markdown: string): string {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let fenced = false;
  return lines
    .map((line, index) => {
      if (/^\s*```/.test(line)) fenced = !fenced;
      const next = lines[index + 1];
      const plain = (text: string | undefined) =>
        text !== undefined && text.trim() !== '' && !STRUCTURED_LINE.test(text);
      return !fenced && plain(line) && plain(next) ? `${line}\n` : line;
    })
    .join('\n');
}

/** Markdown (what the page's textarea holds, or notes saved by older pages) as HTML. */
export function markdownToHtml(markdown: string): string {
  if (!markdown.trim()) return '';
  // Raw HTML inside the markdown is dropped; strike-through (~~x~~) is not in CommonMark,
  // so it is restored here, as the editor's <s> mark.
  const html = renderToStaticMarkup(
    createElement(ReactMarkdown, { skipHtml: true }, linesAsParagraphs(markdown)),
  );
  return html.replace(/\n/g, '').replace(/~~(?=\S)(.*?\S)~~/g, '<s>$1</s>');
}

function inline(node: Node): string {
  if (node.nodeType === Node.TEXT_NODE) return (node.textContent ?? '').replace(/\s+/g, ' ');
  if (!(node instanceof Element)) return '';
  // Never text: code and media that the editor would not keep either.
  if (/^(script|style|template|noscript|iframe|object|img)$/i.test(node.tagName)) return '';
  const inner = Array.from(node.childNodes).map(inline).join('');
  switch (node.tagName.toLowerCase()) {
    case 'strong':
    case 'b':
      return inner.trim() ? `**${inner}**` : inner;
    case 'em':
    case 'i':
      return inner.trim() ? `_${inner}_` : inner;
    case 's':
    case 'del':
    case 'strike':
      return inner.trim() ? `~~${inner}~~` : inner;
    case 'code':
      return `\`${node.textContent ?? ''}\``;
    case 'a':
      return `[${inner}](${node.getAttribute('href') ?? ''})`;
    case 'br':
      return '  \n';
    default:
      return inner;
  }
}

function block(node: Node, indent = ''): string {
  if (!(node instanceof Element)) return inline(node).trim();
  const tag = node.tagName.toLowerCase();
  const children = Array.from(node.childNodes);
  const heading = /^h([1-6])$/.exec(tag);
  if (heading) return `${'#'.repeat(Number(heading[1]))} ${inline(node).trim()}`;
  if (tag === 'ul' || tag === 'ol') {
    return children
      .filter((child) => child instanceof Element && child.tagName.toLowerCase() === 'li')
      .map((item, index) => {
        const marker = tag === 'ol' ? `${index + 1}. ` : '- ';
        // An item holds inline text, or paragraphs (the editor's), and maybe a nested list.
        const parts: string[] = [];
        let text = '';
        const flush = () => {
          if (text.trim()) parts.push(text.trim());
          text = '';
        };
        for (const child of Array.from(item.childNodes)) {
          const tagName = child instanceof Element ? child.tagName.toLowerCase() : '';
          if (tagName === 'ul' || tagName === 'ol') {
            flush();
            parts.push(block(child, `${indent}   `));
          } else if (tagName === 'p') {
            flush();
            text = inline(child);
            flush();
          } else text += inline(child);
        }
        flush();
        return `${indent}${marker}${parts.filter(Boolean).join('\n')}`;
      })
      .join('\n');
  }
  if (tag === 'blockquote')
    return blocks(children)
      .split('\n')
      .map((line) => `> ${line}`)
      .join('\n');
  if (tag === 'pre') return `\`\`\`\n${(node.textContent ?? '').replace(/\n$/, '')}\n\`\`\``;
  if (tag === 'hr') return '---';
  return inline(node).trim();
}

function blocks(nodes: Node[]): string {
  return nodes
    .map((node) => block(node))
    .filter((text) => text !== '')
    .join('\n\n');
}

/** The editor's HTML as markdown for the notes page's textarea. */
export function htmlToMarkdown(html: string): string {
  const doc = new DOMParser().parseFromString(html, 'text/html');
  return blocks(Array.from(doc.body.childNodes));
}
