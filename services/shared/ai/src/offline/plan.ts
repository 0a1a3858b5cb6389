/**
 * Offline planning replies, built from the campaign's open threads: sentences of the session
 * summaries that leave something open (questions, "must", "need to", promises, the missing)
 * and the names that keep coming back in the latest sessions. 'GENERATE SESSION SUGGESTIONS'
 * gets hooks, NPCs, locations and encounters grounded in those threads; a request to write
 * into the document gets the `{actionHint, aiContent}` JSON the planning editor applies.
 */
import type { EditorContext, PlanInput, SessionDigest } from '../engine.ts';
import { tokenize } from '../retrieval.ts';
import { THREAD_CUES, namedCast } from './answer.ts';
import { joinList, summarySentences } from './summarize.ts';
import { clip, mentions, namedTerms, splitSentences, tableTalk, type Sentence } from './text.ts';

export const OFFLINE_PLAN_NOTE =
  "_Offline planning reply (no AI model is configured): built from the campaign's open threads._";
export const OFFLINE_DRAFT_NOTE = '_Drafted by the offline engine (no AI model is configured)._';
export const SUGGESTIONS_MESSAGE = 'GENERATE SESSION SUGGESTIONS';

export type ActionHint = 'replaceSelection' | 'insertAtCursor' | 'append';

/** What a planning reply is built from (the offline engine does not read the history). */
type PlanTextInput = Omit<PlanInput, 'history'>;

export interface Thread {
  session: string;
  text: string;
}

interface Material {
  /** Open threads, latest session first. */
  threads: Thread[];
  characters: string[];
  places: string[];
  /** Every summary sentence with its session, oldest first. */
  sentences: Thread[];
  latest: SessionDigest | null;
}

function gather(input: PlanTextInput): Material {
  const ordered = [...input.sessions]
    .filter((s) => s.summary.trim())
    .sort((a, b) => Date.parse(a.date) - Date.parse(b.date));
  const sentences: Thread[] = ordered.flatMap((s) =>
    summarySentences(s.summary).map((text) => ({ session: s.name, text })),
  );
  const campaign = summarySentences(input.campaignSummary).map((text) => ({
    session: 'the campaign summary',
    text,
  }));

  const threads: Thread[] = [];
  const seen = new Set<string>();
  for (const t of [...sentences].reverse()) {
    if (!THREAD_CUES.test(t.text) || tokenize(t.text).length < 3 || tableTalk(t.text) > 0.3) continue;
    const key = tokenize(t.text).join(' ');
    if (seen.has(key)) continue;
    seen.add(key);
    threads.push(t);
  }

  // Names recurring in the latest two sessions are threads too, until they stop appearing.
  const recent = ordered.slice(-2);
  const recentNames = namedTerms(recent.flatMap((s) => summarySentences(s.summary))).filter(
    (n) => n.count >= 2,
  );
  for (const { term } of recentNames.slice(0, 4)) {
    if (threads.some((t) => mentions(t.text, term))) continue;
    const last = [...sentences].reverse().find((s) => mentions(s.text, term));
    if (last) threads.push({ session: last.session, text: `${term} keeps coming up: ${last.text}` });
  }

  const asSentences: Sentence[] = [...sentences, ...campaign].map((s, line) => ({
    time: null,
    speaker: null,
    text: s.text,
    line,
  }));
  const cast = namedCast(asSentences, 1);
  // The campaign's player characters are characters, whatever the words around them suggest.
  const party = (input.characters ?? []).map((c) => c.character.toLowerCase());
  const isParty = (term: string) =>
    party.some((c) => c === term.toLowerCase() || c.split(/['’\s]/)[0] === term.toLowerCase());
  const places = cast.places.filter((p) => !isParty(p));
  const characters = [...cast.characters, ...cast.places.filter(isParty)];
  return { threads, characters, places, sentences, latest: ordered.at(-1) ?? null };
}

const WRITE_VERB = /\b(?:write|add|insert|draft|replace|rewrite|put|append|fill|update)\b/i;
const DOC_NOUN = /\b(?:doc|docs|document|outline|editor|page|notes)\b/i;
const REPLACE_VERB = /\b(?:replace|rewrite|reword|rephrase)\b/i;

/** How a message wants the document changed, or null when it is a plain question. */
export function documentAction(message: string, editor: EditorContext | null): ActionHint | null {
  const hasSelection = Boolean(editor?.selectedText.trim());
  const wantsReplace = REPLACE_VERB.test(message);
  const wantsWrite = (WRITE_VERB.test(message) && DOC_NOUN.test(message)) || (hasSelection && wantsReplace);
  if (!wantsWrite) return null;
  if (hasSelection && (wantsReplace || /\bselect(?:ed|ion)\b/i.test(message))) return 'replaceSelection';
  if (/\b(?:insert|at (?:the |my )?cursor|here)\b/i.test(message)) return 'insertAtCursor';
  return 'append';
}

export function planText(input: PlanTextInput): string {
  const material = gather(input);
  const message = input.message.trim();
  if (message.toUpperCase() === SUGGESTIONS_MESSAGE) {
    return `${OFFLINE_PLAN_NOTE}\n\n${suggestions(input.groupName, material)}`;
  }
  const action = documentAction(message, input.editor);
  if (action) {
    let content: string;
    if (action === 'replaceSelection') content = rewriteSelection(input.editor!.selectedText, material);
    else if (/\boutline\b/i.test(message)) content = outline(input.groupName, material);
    else if (/\b(?:suggestions?|hooks?|npcs?|encounters?|ideas?|locations?)\b/i.test(message)) {
      content = suggestions(input.groupName, material);
    } else content = notes(input.groupName, material, message);
    return JSON.stringify({ actionHint: action, aiContent: `${content}\n\n${OFFLINE_DRAFT_NOTE}` });
  }
  return `${OFFLINE_PLAN_NOTE}\n\n${reply(input.groupName, material, message)}`;
}

/** A thread or summary sentence with its session; a long one is cut around `focus` words. */
function threadLine(t: Thread, focus: Set<string> = new Set()): string {
  return `${around(t.text, focus, 220)} _(${t.session})_`;
}

function around(text: string, focus: Set<string>, max: number): string {
  if (text.length <= max || focus.size === 0) return clip(text, max);
  const words = [...text.matchAll(/[\p{L}\p{N}'’]+/gu)];
  const hit = words.find((w) => tokenize(w[0]).some((t) => focus.has(t)));
  if (!hit || hit.index < max * 0.6) return clip(text, max);
  const start = text.lastIndexOf(' ', Math.max(0, hit.index - Math.floor(max * 0.3)));
  return `…${clip(text.slice(start + 1), max - 1)}`;
}

function noMaterial(groupName: string): string {
  return `${groupName} has no summarised sessions yet, so there are no open threads to build on. Summarise a session first, then ask again.`;
}

function reply(groupName: string, m: Material, message: string): string {
  if (m.sentences.length === 0) return noMaterial(groupName);
  const parts: string[] = [];
  const asked = new Set(tokenize(message));
  if (asked.size > 0) {
    const related = m.sentences
      .map((s) => ({ s, hits: new Set(tokenize(s.text).filter((t) => asked.has(t))).size }))
      .filter((r) => r.hits > 0)
      .sort((a, b) => b.hits - a.hits)
      .slice(0, 4)
      .map((r) => r.s);
    if (related.length > 0) {
      parts.push(
        'What the session summaries say about it:',
        ...related.map((s) => `- ${threadLine(s, asked)}`),
        '',
      );
    } else {
      parts.push(`The session summaries of ${groupName} don't mention that.`, '');
    }
  }
  if (m.threads.length > 0) {
    parts.push(`Open threads in ${groupName}:`, ...m.threads.slice(0, 5).map((t) => `- ${threadLine(t)}`));
  } else {
    parts.push(`No open threads stand out in the summaries of ${groupName}.`);
  }
  parts.push(
    '',
    'Press SUGGESTIONS for session ideas built from these, or ask me to add them to the document.',
  );
  return parts.join('\n');
}

function suggestions(groupName: string, m: Material): string {
  if (m.sentences.length === 0) return noMaterial(groupName);
  const lines = [`## Session suggestions for ${groupName}`, '', '### Hooks'];
  const threads = m.threads.slice(0, 3);
  const npc = (k: number) => m.characters[k % Math.max(1, m.characters.length)] ?? 'an old acquaintance';
  const place = (k: number) =>
    m.places[k % Math.max(1, m.places.length)] ?? 'the place the party last rested';
  const hookEndings = [
    (k: number) => `${npc(k)} brings it back to the table, and wants an answer now.`,
    (k: number) => `The trail leads to ${place(k)}, where someone is already waiting.`,
    (k: number) => `Leaving it alone has a cost: ${npc(k + 1)} pays it first.`,
  ];
  if (threads.length === 0) lines.push(`1. ${npc(0)} asks the party for help at ${place(0)}.`);
  for (const [k, t] of threads.entries()) lines.push(`${k + 1}. ${threadLine(t)} ${hookEndings[k]!(k)}`);

  lines.push('', '### NPCs');
  const npcs = m.characters.slice(0, 3);
  if (npcs.length === 0)
    lines.push('- No recurring characters in the summaries yet: introduce one tied to a hook.');
  for (const name of npcs)
    lines.push(`- **${name}**: ${lastSeen(m, name)} Give them a goal that crosses the party's plans.`);

  lines.push('', '### Locations');
  const places = m.places.slice(0, 3);
  if (places.length === 0)
    lines.push('- No recurring places in the summaries yet: set the next scene where the last one ended.');
  for (const name of places)
    lines.push(`- **${name}**: ${lastSeen(m, name)} Show what changed since the party was there.`);

  lines.push('', '### Encounters');
  lines.push(
    `- A confrontation at ${place(0)} with people loyal to ${npc(0)}.`,
    `- A negotiation or puzzle over ${threads[0] ? `"${clip(threads[0].text, 80)}"` : 'what the party found last time'}.`,
    `- An ambush on the road to ${place(1)} by someone who wants the party to fail.`,
  );
  return lines.join('\n');
}

function lastSeen(m: Material, name: string): string {
  const last = [...m.sentences].reverse().find((s) => mentions(s.text, name));
  return last
    ? `last seen in ${last.session}: "${clip(last.text, 160)}"`
    : 'mentioned in the campaign summary.';
}

function outline(groupName: string, m: Material): string {
  if (m.sentences.length === 0) return `## Next session of ${groupName}\n\n${noMaterial(groupName)}`;
  const recap = m.latest ? summarySentences(m.latest.summary).slice(0, 2).join(' ') : '';
  const lines = [`## Next session of ${groupName}`, '', '### Recap'];
  lines.push(recap ? `${clip(recap, 400)} _(${m.latest!.name})_` : 'Recap the last session in a few lines.');
  lines.push('', '### Threads to pick up');
  if (m.threads.length === 0) lines.push('- No open threads stand out: start a new one.');
  for (const t of m.threads.slice(0, 4)) lines.push(`- ${threadLine(t)}`);
  lines.push('', '### Scenes');
  const cast = joinList(m.characters.slice(0, 2));
  lines.push(
    `1. Opening: ${m.places[0] ? `at ${m.places[0]}` : 'where the last session ended'}${cast ? `, with ${cast}` : ''}.`,
    `2. Complication: ${m.threads[0] ? clip(m.threads[0].text, 160) : 'an old promise comes due'}.`,
    `3. Climax: ${m.threads[1] ? clip(m.threads[1].text, 160) : 'the party must choose whom to help'}.`,
  );
  return lines.join('\n');
}

function notes(groupName: string, m: Material, message: string): string {
  if (m.sentences.length === 0) return `## Notes for ${groupName}\n\n${noMaterial(groupName)}`;
  const asked = new Set(tokenize(message));
  const related = m.sentences.filter((s) => tokenize(s.text).some((t) => asked.has(t))).slice(-5);
  const lines = [`## Notes for ${groupName}`, ''];
  if (related.length > 0)
    lines.push('### From the sessions', ...related.map((s) => `- ${threadLine(s, asked)}`), '');
  lines.push('### Open threads');
  if (m.threads.length === 0) lines.push('- No open threads stand out.');
  for (const t of m.threads.slice(0, 5)) lines.push(`- ${threadLine(t)}`);
  return lines.join('\n');
}

function rewriteSelection(selected: string, m: Material): string {
  // Without a model, a rewrite restructures: the selection's sentences as a list, followed
  // by the open threads that share its terms.
  const own = splitSentences(selected.replace(/\s+/g, ' ').trim());
  const terms = new Set(tokenize(selected));
  const linked = m.threads.filter((t) => tokenize(t.text).some((x) => terms.has(x))).slice(0, 3);
  const lines = own.map((s) => `- ${s}`);
  if (linked.length > 0) lines.push('', 'Related open threads:', ...linked.map((t) => `- ${threadLine(t)}`));
  return lines.join('\n');
}
