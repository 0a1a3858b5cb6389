import type { EditorContext, SessionDigest, SpeakerCharacter } from '../engine.ts';

/**
 * The fixed texts the OpenAI engine sends. The chat instructions open every chat request with
 * the same bytes, so servers that cache prompt prefixes reuse them turn after turn.
 */
export const CHAT_INSTRUCTIONS = [
  'You are Chronicler, an assistant for tabletop role-playing groups. You answer questions about',
  'one recorded game session using only its transcript below (the whole transcript, or the',
  'passages of it that matter to the question). Transcript lines look like',
  '"[HH:MM:SS] Speaker: text". When you state something from the transcript, cite the time it',
  'was said as [HH:MM:SS]. If the transcript does not say, answer that it does not; never invent',
  'events, names or rules. Answer in the language of the question, briefly, in plain text or',
  'light markdown.',
].join('\n');

/** The sections of a session summary, the same whoever writes it (the offline engine too). */
export const SESSION_SUMMARY_SECTIONS = [
  '### What happened',
  '### People met',
  '### Places',
  '### Loot and rewards',
  '### Open threads',
] as const;

const SECTIONS_AND_CITATIONS = [
  `Use exactly these markdown sections, in this order: ${SESSION_SUMMARY_SECTIONS.map((h) => `"${h}"`).join(', ')}.`,
  'Under each, bullet points ("- "); write "- None." when the session has nothing for a section.',
  '"What happened" covers the whole session in order, one bullet per scene, from the start to the',
  'end, leaving out table talk and any recap of earlier sessions. End each bullet with the times',
  'of its key moments as links, [[HH:MM:SS]](#t=HH:MM:SS), never inside the sentences. Name',
  'characters, not the players who voice them (see who is who when given).',
].join('\n');

export const SESSION_SUMMARY_INSTRUCTIONS = [
  'You summarise recorded tabletop role-playing sessions for the game master and players. Write a',
  'summary of the session below: what happened, the people met, the places, the loot and rewards',
  'and the open threads for next time. No preamble. Stick to what the transcript says.',
  SECTIONS_AND_CITATIONS,
].join('\n');

export const PART_SUMMARY_INSTRUCTIONS = [
  'You summarise one part of a long recorded tabletop role-playing session. Summarise this part',
  'only: what happened in order, the decisions made, the characters and places that matter, any',
  'loot or rewards and open questions, with the times ([HH:MM:SS]) of key moments. Bullet points,',
  'no preamble. Leave out table talk and recaps of earlier sessions. Stick to what the transcript says.',
].join('\n');

export const MERGE_SUMMARY_INSTRUCTIONS = [
  'You are given the summaries of consecutive parts of one tabletop role-playing session, in',
  'order. Merge them into one summary of the whole session, covering every part. No preamble,',
  'and add nothing the summaries do not say.',
  SECTIONS_AND_CITATIONS,
].join('\n');

export const CAMPAIGN_SUMMARY_INSTRUCTIONS = [
  'You summarise a tabletop role-playing campaign from the summaries of its sessions, oldest',
  'first. Use exactly these markdown sections: "### Story so far" (the main arcs, in order),',
  '"### Characters" (the party, then the non-player characters who matter, each with a few',
  'words), "### Places", "### Open threads". A character is never listed as a place. No',
  'preamble, and add nothing the session summaries do not say.',
].join('\n');

export const PLANNING_INSTRUCTIONS = [
  'You help a game master plan the next sessions of a tabletop role-playing campaign: ideas,',
  'encounters, non-player characters, plot hooks, consistent with what already happened (the',
  'campaign summary and session summaries below). Do what the game master asks, in the form',
  'asked, before anything else. The player characters (who is who, when given) are characters,',
  'never locations. Answer in plain text or light markdown.',
].join('\n');

export const PLANNING_JSON_INSTRUCTIONS = [
  'The game master is editing a planning document (shown below with the current selection).',
  'Answer with a JSON object and nothing else, in one of two forms:',
  '- to change the document: {"actionHint": "replaceSelection" | "insertAtCursor" | "append",',
  '  "aiContent": "<the markdown text to put in the document>"}. Use replaceSelection only when',
  '  text is selected and should be rewritten, insertAtCursor to add text where the cursor is,',
  '  append to add to the end;',
  '- otherwise (a question, a discussion, nothing to write): {"reply": "<your answer>"}.',
].join('\n');

export function sessionsBlock(sessions: SessionDigest[]): string {
  if (sessions.length === 0) return 'No sessions yet.';
  return sessions
    .map((s) => `## ${s.name} (${s.date.slice(0, 10)})\n${s.summary.trim() || 'No summary.'}`)
    .join('\n\n');
}

export function editorBlock(editor: EditorContext): string {
  const selection = editor.selection
    ? `Selection: characters ${editor.selection.start} to ${editor.selection.end}` +
      (editor.selectedText ? `\nSelected text:\n"""\n${editor.selectedText}\n"""` : '')
    : 'No selection.';
  return `Planning document:\n"""\n${editor.content}\n"""\n${selection}`;
}

/** Who is who, for a prompt: empty when no map is known. */
export function whoIsWhoBlock(characters: SpeakerCharacter[] | undefined): string {
  if (!characters || characters.length === 0) return '';
  return `Who is who (speaker tag: the character they play): ${characters
    .map((c) => `${c.speaker}: ${c.character}`)
    .join('; ')}.\n\n`;
}
