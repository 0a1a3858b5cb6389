/**
 * The offline engine's character recap and "previously on": the campaign's own lines, quoted
 * with links to their moments, never prose of its own. A character's recap keeps to what their
 * player witnessed (story.ts) and says which sessions it leaves out and why.
 */
import type { CharacterRecapInput, PreviouslyInput, StoryEntry } from '../engine.ts';
import { momentMarkdown, namesPattern, sessionHeading, sessionStory } from '../story.ts';
import { codexLines } from './codex.ts';
import { cut, offlineText } from './lines.ts';

/** Quoted lines per session: more when the campaign is short. */
const perSession = (sessions: number) => Math.max(3, Math.min(8, Math.round(24 / Math.max(1, sessions))));

const quote = (
  sessionId: string,
  l: { text: string; speaker: string | null; seconds: number | null; pos: number },
) =>
  `"${cut(l.text, 240).replace(/"/g, '”')}"${l.speaker ? ` (${l.speaker})` : ''} ${momentMarkdown(sessionId, l.seconds, l.pos)}`;

const entryLine = (e: StoryEntry) =>
  `**${e.name}** (${e.kind})${e.description ? `: ${cut(e.description, 200)}` : ''}`;

export function characterRecapText(input: CharacterRecapInput): string {
  const stories = input.sessions.map((s) =>
    sessionStory(s, input.player, input.character, input.entries, input.secrets),
  );
  const present = stories.filter((s) => s.present);
  const absent = stories.filter((s) => !s.present);
  const out = [`## ${input.character}'s story so far`, ''];
  out.push(
    `Played by ${input.player}. Told from the ${present.length} session${present.length === 1 ? '' : 's'} ` +
      `${input.player} was at, and only the scenes they were in.` +
      (absent.length > 0
        ? ` Left out, as ${input.character} was not there: ${absent.map((s) => s.session.name).join(', ')}.`
        : ''),
  );
  const n = perSession(present.length);
  const met = new Map<string, StoryEntry>();
  for (const s of present) {
    out.push('', `### ${sessionHeading(s.session)}`);
    const picked = s.ranked
      .slice(0, n)
      .map((r) => r.line)
      .sort((a, b) => a.pos - b.pos);
    if (picked.length === 0) out.push('- Nothing of their own in this session.');
    for (const l of picked) out.push(`- ${quote(s.session.id, l)}`);
    const missed = s.totalLines - s.witnessedLines;
    if (missed > 0 && s.witnessedLines > 0) {
      out.push(
        `- *${Math.round((100 * missed) / s.totalLines)}% of the session happened where ${input.character} was not.*`,
      );
    }
    for (const e of s.met) if (e.kind !== 'thread') met.set(e.name, e);
  }
  if (present.length === 0)
    out.push('', `${input.player} has not spoken in any session of ${input.campaign} yet.`);
  if (met.size > 0) {
    out.push('', `### Who and what ${input.character} met`);
    for (const e of [...met.values()].slice(0, 20)) out.push(`- ${entryLine(e)}`);
  }
  return offlineText(out.join('\n'));
}

export function previouslyText(input: PreviouslyInput): string {
  const last = input.sessions.at(-1);
  const out = [`## Previously on ${input.campaign}`];
  if (!last) return offlineText([...out, '', 'No session has been played yet.'].join('\n'));
  out.push(
    '',
    `Last time, in ${sessionHeading({ id: last.id ?? '', name: last.name, date: last.date, transcript: '' })}:`,
  );
  const secret = namesPattern(input.secrets.flatMap((e) => [e.name, ...e.aliases]));
  const summary = last.summary.replace(/^\s*<!--[^>]*-->\s*/, '').trim();
  // A summary that names a secret is not read to players: the session's own lines are, without it.
  if (summary && !(secret && secret.test(summary))) {
    out.push('', summary);
  } else {
    // No summary to tell it: the last third of the session, the narrator's longest lines.
    const lines = codexLines(input.lastTranscript).filter((l) => l.text);
    const words = new Map<string, number>();
    for (const l of lines) if (l.speaker) words.set(l.speaker, (words.get(l.speaker) ?? 0) + l.text.length);
    const narrator = [...words].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
    const tail = lines.slice(Math.floor((lines.length * 2) / 3));
    const picked = tail
      .filter((l) => (narrator === null || l.speaker === narrator) && !(secret && secret.test(l.text)))
      .sort((a, b) => b.text.length - a.text.length)
      .slice(0, 5)
      .sort((a, b) => a.pos - b.pos);
    out.push('');
    for (const l of picked) out.push(`- ${quote(last.id ?? '', l)}`);
  }
  if (input.threads.length > 0) {
    out.push('', '### Still open');
    for (const t of input.threads.slice(0, 6)) out.push(`- ${t.description || t.name}`);
  }
  if (input.entries.length > 0) {
    out.push('', '### Who and where');
    for (const e of input.entries.slice(0, 12)) out.push(`- ${entryLine(e)}`);
  }
  return offlineText(out.join('\n'));
}
