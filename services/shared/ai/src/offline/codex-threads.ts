/**
 * Open threads as the offline codex finds them: late questions about the story (a line that asks
 * where, who, why or what of someone or somewhere the session named, not a question about the
 * rules or the show), and the narrator's statements of a task ("you need to find ...", "return
 * the crown"). Each is quoted as said; a model writes them as threads instead.
 */
import type { CodexFinding } from '@chronicler/contracts';
import type { CodexLine } from './codex-table.ts';
import { OUT_OF_GAME, RULES_LINE } from './codex-cues.ts';

const MAX_THREADS = 5;
const QUESTION = /(?:^|[.!?]\s+)((?:who|what|where|why|how|when|which)\b[^?]{8,160}\?)/i;
const TASK =
  /(?:^|[.!?]\s+)([^.!?]*\b(?:need to|must|have to|has to|asks? you to|asked you to|wants you to|begs you to|if you|until you)\s+(?:find|rescue|return|stop|save|bring|kill|destroy|retrieve|deliver|reach|protect|warn|free|recover|track down|hunt down|escort)\b[^.!?]{3,160}[.!?]?)/i;

export function codexThreads(
  lines: CodexLine[],
  names: string[],
  narrator: string | null,
  oog: boolean[],
): CodexFinding[] {
  if (names.length === 0) return [];
  const named = new RegExp(
    `(?<![\\p{L}])(?:${names.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?![\\p{L}])`,
    'u',
  );
  const half = Math.floor(lines.length / 2);
  const found: CodexFinding[] = [];
  const seen = new Set<string>();
  for (let i = lines.length - 1; i >= 0 && found.length < MAX_THREADS; i--) {
    const l = lines[i]!;
    if (oog[l.pos] || RULES_LINE.test(l.text) || l.text.match(OUT_OF_GAME)) continue;
    const question = i >= half && l.speaker !== narrator ? QUESTION.exec(l.text)?.[1] : undefined;
    const task = l.speaker === narrator || narrator === null ? TASK.exec(l.text)?.[1] : undefined;
    const said = (question ?? task)?.trim();
    if (!said || !named.test(said)) continue;
    const key = said.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    found.push({
      kind: 'thread',
      name: said.length <= 80 ? said : `${said.slice(0, 77).replace(/\s+\S*$/, '')} …`,
      aliases: [],
      description: `“${l.text.length <= 300 ? l.text : `${l.text.slice(0, 297)} …`}”${l.speaker ? ` (${l.speaker})` : ''}`,
      count: 1,
      mentions: [{ line: l.pos, seconds: l.seconds }],
    });
  }
  return found.reverse();
}
