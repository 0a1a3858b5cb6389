/**
 * Offline planning: suggestions that quote the open threads of the campaign's sessions. The
 * fallback writes nothing of its own, so a request it cannot do (rewrite the selection, draft a
 * scene, answer a question) is told so in the chat, and the document is never touched: the
 * reply is never the JSON action the app applies to the document. Asked for prep items (a
 * checklist), it proposes the open threads themselves as items: the checklist action the
 * planning service adds to the group's prep.
 */
import { ADD_PREP_ITEMS } from '@chronicler/contracts';
import type { PlanInput } from '../engine.ts';
import { sectionBullets } from './campaign.ts';
import { cut, offlineText, terms } from './lines.ts';

/** What the suggestions button sends. */
export const SUGGESTIONS_REQUEST = 'GENERATE SESSION SUGGESTIONS';
const WANTS_SUGGESTIONS = /\b(suggest\w*|ideas?|hooks?|threads?|next|plan\w*)\b/i;

/** A request for checklist items: "prep items", "a checklist", "add these to my prep". */
const WANTS_PREP = /\b(prep(?:aration)?(?: items?| list)?|check ?list|to-?do list|task list)\b/i;

function openThreads(input: PlanInput): string[] {
  const fromSessions = [...input.sessions]
    .reverse()
    .flatMap((s) =>
      sectionBullets(s.summary, /open (threads|questions)/i).map((t) => `${t} (from ${s.name})`),
    );
  const fromCampaign = sectionBullets(input.campaignSummary, /open threads/i);
  return [...new Set([...fromSessions, ...fromCampaign])].slice(0, 8);
}

/** The open threads as prep items: their own words (matched against the transcript), once each. */
function prepItems(input: PlanInput): string[] {
  const threads = [...input.sessions]
    .reverse()
    .flatMap((s) => sectionBullets(s.summary, /open (threads|questions)/i))
    .concat(sectionBullets(input.campaignSummary, /open threads/i))
    .map((t) => t.replace(/\*\*/g, '').trim());
  const seen = new Set<string>();
  return threads.filter((t) => !seen.has(t.toLowerCase()) && seen.add(t.toLowerCase())).slice(0, 8);
}

export function planText(input: PlanInput): string {
  const message = input.message.trim();
  const threads = openThreads(input);
  const quoted = threads.length
    ? `Threads your sessions left open, newest first:\n\n${threads.map((t) => `- ${t}`).join('\n')}`
    : 'Your sessions’ summaries list no open threads yet (summarise a session first).';
  if (WANTS_PREP.test(message)) {
    const items = prepItems(input);
    if (items.length) return JSON.stringify({ actionHint: ADD_PREP_ITEMS, items });
    return offlineText(
      'The offline fallback proposes prep items from the open threads of your sessions’ summaries, and they list none yet (summarise a session first). Nothing was added to the checklist.',
    );
  }
  if (message === SUGGESTIONS_REQUEST || WANTS_SUGGESTIONS.test(message)) {
    const next = threads.length
      ? '\n\nEach could open the next session: pick one and ask the table what their characters do about it.'
      : '';
    return offlineText(`${quoted}${next}`);
  }
  const found = matchingSentences(input, message);
  const answer = found.length
    ? `What your sessions’ summaries say about it:\n\n${found.map((f) => `> ${f}`).join('\n>\n')}`
    : 'The offline fallback cannot answer that: no summary of your sessions mentions it.';
  const untouched = asksForAnEdit(input, message)
    ? 'The offline fallback cannot write or change the planning document; nothing in it was changed.\n\n'
    : '';
  return offlineText(`${untouched}${answer}\n\n${quoted}`);
}

const EDIT_WORDS = /\b(write|rewrite|edit|change|add|insert|replace|draft|make|doc|document)\b/i;

/**
 * Whether the message asks for the document to change: text is selected in it, or the message
 * says so. A question ("Where is Vesper?") is answered without the note that nothing changed.
 */
function asksForAnEdit(input: PlanInput, message: string): boolean {
  if (!input.editor) return false;
  return input.editor.selectedText.trim() !== '' || EDIT_WORDS.test(message);
}

/** The summary sentences sharing the most words with the message, quoted with their session. */
function matchingSentences(input: PlanInput, message: string): string[] {
  const wanted = new Set(terms(message));
  const sources = [
    ...input.sessions.map((s) => ({ from: s.name, text: s.summary })),
    { from: 'the campaign summary', text: input.campaignSummary },
  ];
  return sources
    .flatMap(({ from, text }) =>
      (text.replace(/<!--[^>]*-->/g, '').match(/[^.!?\n]+[.!?]?/g) ?? []).map((sentence) => ({
        sentence: `${cut(sentence.replace(/^[\s#*>-]+/, '').trim(), 300)} (${from})`,
        score: new Set(terms(sentence).filter((t) => wanted.has(t))).size,
      })),
    )
    .filter((s) => s.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, 3)
    .map((s) => s.sentence);
}
