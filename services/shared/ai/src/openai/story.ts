/**
 * A character's story and "previously on", written by the model in one request each within its
 * context: the character's recap from the lines their player witnessed (story.ts ranks them; each
 * session gets an equal share of the room, best lines first, told in order), the "previously on"
 * from the latest sessions' summaries and the open threads. Times the model cites become links
 * to their moments; a time no given line has is dropped.
 */
import { formatOffset } from '@chronicler/contracts';
import { Type } from '@sinclair/typebox';
import type { AiRequestContext, CharacterRecapInput, PreviouslyInput, StoryEntry } from '../engine.ts';
import { sessionHeading, sessionStory, namesPattern } from '../story.ts';
import { whoIsWhoBlock } from './prompts.ts';
import { promptBudget } from './recap.ts';
import { clipTokens, completeStructured, structuredOverhead, type ModelPort } from './structured.ts';

const strict = { additionalProperties: false } as const;
const Moment = Type.Object(
  { time: Type.String({ description: 'HH:MM:SS as given' }), text: Type.String() },
  strict,
);
const CharacterStorySchema = Type.Object(
  {
    sessions: Type.Array(
      Type.Object(
        {
          number: Type.Integer({ description: 'The session by its number in the list given' }),
          story: Type.String({ description: 'What the character lived in that session, a paragraph' }),
          moments: Type.Array(Moment),
        },
        strict,
      ),
    ),
  },
  strict,
);
const PreviouslySchema = Type.Object(
  { story: Type.Array(Type.String()), threads: Type.Array(Type.String()) },
  strict,
);
const CHARACTER_STORY = { name: 'character_story', schema: CharacterStorySchema };
const PREVIOUSLY = { name: 'previously_on', schema: PreviouslySchema };

const CHARACTER_INSTRUCTIONS = [
  "You tell one player character's story across a tabletop role-playing campaign, for the player.",
  'Below are, per session (numbered, oldest first), lines of what that character was present for',
  '("[HH:MM:SS] Speaker: text"; the player speaks as the character). Tell only what these lines',
  'show: the character was not present for anything else. Per session: a paragraph in the third',
  'person naming characters rather than players, and the moments that mattered, each with its time',
  'copied from the lines. Add nothing the lines do not say.',
].join('\n');

const PREVIOUSLY_INSTRUCTIONS = [
  'You write the "previously on" read aloud at the start of the next session of a tabletop',
  'role-playing campaign: a few short paragraphs on where the story stands, mostly the last',
  'session, from the session summaries and open threads below, and the threads still open. Name',
  'characters, not players. Add nothing the summaries do not say.',
].join('\n');

const entriesBlock = (entries: StoryEntry[]) =>
  entries.length
    ? `Codex:\n${entries.map((e) => `- ${e.name} (${e.kind})${e.description ? `: ${e.description}` : ''}`).join('\n')}\n\n`
    : '';

const TIME = /(\d{1,3}):([0-5]\d):([0-5]\d)/;

export async function characterStoryWithModel(
  port: ModelPort,
  ctx: AiRequestContext,
  input: CharacterRecapInput,
): Promise<string> {
  const stories = input.sessions
    .map((s) => sessionStory(s, input.player, input.character, input.entries, input.secrets))
    .filter((s) => s.present);
  const absent = input.sessions.filter((s) => !stories.some((x) => x.session.id === s.id));
  const head = `Campaign: ${input.campaign}\nCharacter: ${input.character} (played by ${input.player})\n\n${whoIsWhoBlock(input.characters)}`;
  const budget = promptBudget(port) - structuredOverhead(port, CHARACTER_INSTRUCTIONS, CHARACTER_STORY) - 64;
  const entries = clipTokens(port.counter, entriesBlock(input.entries), Math.floor(budget * 0.15));
  const room = budget - port.counter.count(head + entries);
  const share = Math.floor(room / Math.max(1, stories.length)) - 16;
  const blocks = stories.map((s, i) => {
    const kept: typeof s.ranked = [];
    let used = 0;
    for (const r of s.ranked) {
      const t = port.counter.count(r.line.text) + 12;
      if (used + t > share) continue;
      kept.push(r);
      used += t;
    }
    const lines = kept
      .map((r) => r.line)
      .sort((a, b) => a.pos - b.pos)
      .map(
        (l) => `[${l.seconds === null ? '--:--:--' : formatOffset(l.seconds)}] ${l.speaker ?? ''}: ${l.text}`,
      );
    return `Session ${i + 1}: ${s.session.name} (${s.session.date.slice(0, 10)})\n${lines.join('\n') || '(nothing of theirs)'}`;
  });
  const out = [`## ${input.character}'s story so far`, ''];
  out.push(
    `Played by ${input.player}; told from the scenes they were in.` +
      (absent.length
        ? ` Left out, as ${input.character} was not there: ${absent.map((s) => s.name).join(', ')}.`
        : ''),
  );
  if (stories.length === 0)
    return [...out, '', `${input.player} has not spoken in any session yet.`].join('\n');
  const story = await completeStructured(
    port,
    ctx,
    CHARACTER_INSTRUCTIONS,
    `${head}${entries}${blocks.join('\n\n')}`,
    CHARACTER_STORY,
  );
  for (const part of story.sessions) {
    const s = stories[part.number - 1];
    if (!s) continue;
    out.push('', `### ${sessionHeading(s.session)}`, '', part.story.trim());
    const times = new Set(s.ranked.map((r) => (r.line.seconds === null ? '' : formatOffset(r.line.seconds))));
    for (const m of part.moments) {
      const t = TIME.exec(m.time);
      const time = t ? formatOffset(Number(t[1]) * 3600 + Number(t[2]) * 60 + Number(t[3])) : '';
      out.push(
        `- ${m.text.trim()}${times.has(time) && time ? ` [[${time}]](/sessions/${s.session.id}#t=${time})` : ''}`,
      );
    }
  }
  return out.join('\n');
}

export async function previouslyWithModel(
  port: ModelPort,
  ctx: AiRequestContext,
  input: PreviouslyInput,
): Promise<string> {
  const last = input.sessions.at(-1);
  const title = `## Previously on ${input.campaign}`;
  if (!last) return `${title}\n\nNo session has been played yet.`;
  const secret = namesPattern(input.secrets.flatMap((e) => [e.name, ...e.aliases]));
  const budget = promptBudget(port) - structuredOverhead(port, PREVIOUSLY_INSTRUCTIONS, PREVIOUSLY) - 64;
  const threads = input.threads.length
    ? `Open threads:\n${input.threads.map((t) => `- ${t.name}${t.description ? `: ${t.description}` : ''}`).join('\n')}\n\n`
    : '';
  const fixed = `Campaign: ${input.campaign}\n\n${whoIsWhoBlock(input.characters)}${clipTokens(port.counter, entriesBlock(input.entries) + threads, Math.floor(budget * 0.3))}`;
  // The last session first in the room, then the ones before it as far as they fit.
  let room = budget - port.counter.count(fixed);
  const blocks: string[] = [];
  for (const s of [...input.sessions].reverse()) {
    const text = `Session: ${s.name} (${s.date.slice(0, 10)})\n${s.summary.trim() || 'No summary.'}`;
    const clipped = clipTokens(port.counter, text, room);
    if (port.counter.count(clipped) < 20) break;
    blocks.unshift(clipped);
    room -= port.counter.count(clipped) + 4;
  }
  const written = await completeStructured(
    port,
    ctx,
    PREVIOUSLY_INSTRUCTIONS,
    `${fixed}${blocks.join('\n\n')}`,
    PREVIOUSLY,
  );
  // A shared "previously on" never says a name the game master keeps secret.
  const keep = (s: string) => !(secret && secret.test(s));
  const out = [title, '', ...written.story.filter(keep).map((p) => p.trim())];
  const open = written.threads.filter(keep);
  if (open.length) out.push('', '### Still open', ...open.map((t) => `- ${t.trim()}`));
  out.push(
    '',
    `Last session: ${sessionHeading({ id: last.id ?? '', name: last.name, date: last.date, transcript: '' })}`,
  );
  return out.join('\n');
}
