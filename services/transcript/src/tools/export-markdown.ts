import { isOfflineAiText } from '@chronicler/contracts';
import type { PhrasingContent, RootContent } from 'mdast';
import { fromMarkdown } from 'mdast-util-from-markdown';

/**
 * A summary (Markdown a model or the offline fallback wrote) read as a word processor or a plain
 * text file shows it: headings, paragraphs, list items and quotes of text runs, bold and italic
 * kept as styles, never as `**` or `#`. Raw HTML (the offline marker `<!-- chronicler:offline -->`
 * included) is dropped, and a link keeps its words only: the app's links are relative and mean
 * nothing in a file.
 */

interface Run {
  text: string;
  bold?: boolean;
  italic?: boolean;
}

export interface Block {
  kind: 'heading' | 'paragraph' | 'bullet' | 'numbered' | 'quote';
  /** A heading's depth (1-6), a list item's nesting (0 at the top). */
  level: number;
  /** A numbered item's number. */
  number?: number;
  runs: Run[];
}

/** Said above a text the offline fallback wrote, in words instead of its marker. */
export const OFFLINE_NOTE =
  "Offline digest: no AI model was connected, so these are the transcript's own lines, not a written recap.";

type Style = Pick<Run, 'bold' | 'italic'>;

function runsOf(nodes: PhrasingContent[], style: Style = {}): Run[] {
  return nodes.flatMap((n): Run[] => {
    switch (n.type) {
      case 'text':
      case 'inlineCode':
        return [{ text: n.value, ...style }];
      case 'strong':
        return runsOf(n.children, { ...style, bold: true });
      case 'emphasis':
        return runsOf(n.children, { ...style, italic: true });
      case 'delete':
      case 'link':
      case 'linkReference':
        return runsOf(n.children, style);
      case 'image':
      case 'imageReference':
        return n.alt ? [{ text: n.alt, ...style }] : [];
      case 'break':
        return [{ text: ' ', ...style }];
      default:
        // html (raw tags, comments), footnote references: nothing a reader reads.
        return [];
    }
  });
}

const hasText = (b: Block): boolean => b.runs.some((r) => r.text.trim());

function blocksOf(nodes: RootContent[], depth: number, quoted: boolean): Block[] {
  const out: Block[] = [];
  for (const n of nodes) {
    if (n.type === 'heading') out.push({ kind: 'heading', level: n.depth, runs: runsOf(n.children) });
    else if (n.type === 'paragraph')
      out.push({ kind: quoted ? 'quote' : 'paragraph', level: 0, runs: runsOf(n.children) });
    else if (n.type === 'code') out.push({ kind: 'paragraph', level: 0, runs: [{ text: n.value }] });
    else if (n.type === 'blockquote') out.push(...blocksOf(n.children, depth, true));
    else if (n.type === 'list') {
      n.children.forEach((item, i) => {
        const [first, ...rest] = item.children;
        const runs = first?.type === 'paragraph' ? runsOf(first.children) : [];
        out.push({
          kind: n.ordered ? 'numbered' : 'bullet',
          level: depth,
          ...(n.ordered ? { number: (n.start ?? 1) + i } : {}),
          runs,
        });
        out.push(...blocksOf(first?.type === 'paragraph' ? rest : item.children, depth + 1, quoted));
      });
    } else if (n.type === 'table') {
      for (const row of n.children)
        out.push({
          kind: 'paragraph',
          level: 0,
          runs: row.children.flatMap((cell, i) => [
            ...(i ? [{ text: ' | ' }] : []),
            ...runsOf(cell.children),
          ]),
        });
    }
    // html, thematic breaks, definitions: nothing to read.
  }
  return out.filter(hasText);
}

/** The blocks of a summary, the offline fallback's marker as a note in words. */
export function summaryBlocks(markdown: string): Block[] {
  const blocks = blocksOf(fromMarkdown(markdown).children, 0, false);
  return isOfflineAiText(markdown)
    ? [{ kind: 'paragraph', level: 0, runs: [{ text: OFFLINE_NOTE, italic: true }] }, ...blocks]
    : blocks;
}

/** Blocks as plain text lines: list items with a bullet or their number, indented by nesting. */
export function plainLines(blocks: Block[]): string[] {
  return blocks.map((b) => {
    const text = b.runs
      .map((r) => r.text)
      .join('')
      .replace(/\s*\n\s*/g, ' ')
      .trim();
    const indent = '  '.repeat(b.level);
    if (b.kind === 'bullet') return `${indent}• ${text}`;
    if (b.kind === 'numbered') return `${indent}${b.number}. ${text}`;
    return text;
  });
}
