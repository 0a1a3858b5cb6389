import { Document, HeadingLevel, Packer, Paragraph, TextRun } from 'docx';
import { sessionDate, whoSaid, type SessionExport } from './export-formats.ts';

/** Paragraphs of a multi-line text (a summary, notes), or one italic placeholder. */
function block(text: string, empty: string): Paragraph[] {
  const lines = text.trim() ? text.trim().split(/\r?\n/) : [];
  if (lines.length === 0) return [new Paragraph({ children: [new TextRun({ text: empty, italics: true })] })];
  return lines.map((line) => new Paragraph({ text: line }));
}

/** A Word document of one session: title, date, summary, notes, then each line with its time and speaker in bold. */
export async function toDocx(e: SessionExport): Promise<Buffer> {
  const heading = (text: string) => new Paragraph({ text, heading: HeadingLevel.HEADING_2 });
  const children: Paragraph[] = [
    new Paragraph({ text: e.session.name, heading: HeadingLevel.TITLE }),
    new Paragraph({ text: `Date: ${sessionDate(e.session.session_timestamp)}` }),
    heading('Summary'),
    ...block(e.session.summary, 'No summary.'),
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
    sections: [{ children }],
  });
  return Packer.toBuffer(doc);
}
