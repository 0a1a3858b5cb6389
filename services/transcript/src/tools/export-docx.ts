import { Document, HeadingLevel, LevelFormat, Packer, Paragraph, TextRun } from 'docx';
import { sessionDate, whoSaid, type SessionExport } from './export-formats.ts';
import { summaryBlocks, type Block } from './export-markdown.ts';

const HEADINGS = [
  HeadingLevel.HEADING_3,
  HeadingLevel.HEADING_3,
  HeadingLevel.HEADING_3,
  HeadingLevel.HEADING_4,
  HeadingLevel.HEADING_5,
  HeadingLevel.HEADING_6,
] as const;

/** A summary's block as Word shows it: a real heading, list item or quote of styled runs. */
function paragraphOf(b: Block): Paragraph {
  const children = b.runs.map((r) => new TextRun({ text: r.text, bold: r.bold, italics: r.italic }));
  if (b.kind === 'heading') return new Paragraph({ children, heading: HEADINGS[b.level - 1] });
  if (b.kind === 'bullet') return new Paragraph({ children, bullet: { level: b.level } });
  if (b.kind === 'numbered')
    return new Paragraph({ children, numbering: { reference: 'summary-numbers', level: b.level } });
  if (b.kind === 'quote') return new Paragraph({ children, indent: { left: 720 } });
  return new Paragraph({ children });
}

/** Paragraphs of a multi-line text (a summary, notes), or one italic placeholder. */
function block(text: string, empty: string): Paragraph[] {
  const lines = text.trim() ? text.trim().split(/\r?\n/) : [];
  if (lines.length === 0) return [new Paragraph({ children: [new TextRun({ text: empty, italics: true })] })];
  return lines.map((line) => new Paragraph({ text: line }));
}

/** A Word document of one session: title, date, summary (its Markdown as Word's own headings, bold and lists), notes, then each line with its time and speaker in bold. */
export async function toDocx(e: SessionExport): Promise<Buffer> {
  const heading = (text: string) => new Paragraph({ text, heading: HeadingLevel.HEADING_2 });
  const summary = summaryBlocks(e.session.summary);
  const children: Paragraph[] = [
    new Paragraph({ text: e.session.name, heading: HeadingLevel.TITLE }),
    new Paragraph({ text: `Date: ${sessionDate(e.session.session_timestamp)}` }),
    heading('Summary'),
    ...(summary.length ? summary.map(paragraphOf) : block('', 'No summary.')),
    heading('Notes'),
    ...block(e.notes, 'No notes.'),
  ];
  if (e.speakers.length) {
    children.push(heading('Speakers'));
    for (const s of e.speakers)
      children.push(new Paragraph({ text: `${s.label}: ${s.name}`, bullet: { level: 0 } }));
  }
  children.push(heading('Transcript'));
  for (const line of e.lines) {
    const who = whoSaid(line);
    const head = `${line.time ? `[${line.time}] ` : ''}${who ? `${who}:` : ''}`.trim();
    children.push(
      new Paragraph({
        children: [...(head ? [new TextRun({ text: `${head} `, bold: true })] : []), new TextRun(line.text)],
      }),
    );
  }
  const doc = new Document({
    title: e.session.name,
    creator: 'Chronicler',
    numbering: {
      config: [
        {
          reference: 'summary-numbers',
          levels: [0, 1, 2, 3].map((level) => ({
            level,
            format: LevelFormat.DECIMAL,
            text: `%${level + 1}.`,
            style: { paragraph: { indent: { left: 720 * (level + 1), hanging: 360 } } },
          })),
        },
      ],
    },
    sections: [{ children }],
  });
  return Packer.toBuffer(doc);
}
