import {
  AiUnavailableError,
  type AiRequestContext,
  type CampaignContext,
  type CampaignSummaryInput,
  type SessionSummaryInput,
} from '../engine.ts';
import { partyNames } from '../party.ts';
import { renderCampaignRecap, renderRecap } from '../recap/render.ts';
import { CAMPAIGN_RECAP, CHUNK_NOTES, RECAP, type ChunkNotes } from '../recap/schema.ts';
import {
  campaignBlock,
  CAMPAIGN_RECAP_INSTRUCTIONS,
  MERGE_NOTES_INSTRUCTIONS,
  PART_NOTES_INSTRUCTIONS,
  RECAP_INSTRUCTIONS,
  whoIsWhoBlock,
} from './prompts.ts';
import { clipTokens, completeStructured, structuredOverhead, type ModelPort } from './structured.ts';

/** Parallel map requests of one recap (each rate limited and recorded). */
const MAP_CONCURRENCY = 4;
/** Merge rounds before notes that will not shrink to the context are given up. */
const MAX_MERGE_ROUNDS = 6;
/** Share of a request the campaign's context may take in a session's recap. */
const CAMPAIGN_SHARE = 0.2;
/** Share of a chunk repeated at the start of the next, so a scene cut in two is seen whole. */
const OVERLAP_SHARE = 0.1;

/** Prompt tokens one request may hold: the context less the answer's room and a margin. */
export const promptBudget = (port: ModelPort) => port.contextTokens - port.answerTokens - 32;

/**
 * A session recap on any context: one request when the transcript fits; else a map over
 * time-ordered chunks that fit (with overlap), each giving notes that keep their times, reduced
 * into the recap (merging the notes in groups first when they do not fit one request).
 */
export async function sessionRecap(
  port: ModelPort,
  ctx: AiRequestContext,
  input: SessionSummaryInput,
): Promise<string> {
  const base = `Session: ${input.name}\n\n${whoIsWhoBlock(input.characters)}`;
  const header = `${base}${campaignHeader(port, input.campaign)}`;
  // A part's notes need the campaign's names (spelled alike); the threads and the previous
  // session are for the recap written from the notes, so the many part requests stay small.
  const partHeader = `${base}${campaignHeader(
    port,
    input.campaign && { ...input.campaign, openThreads: [], previous: undefined },
  )}`;
  const render = (recap: Parameters<typeof renderRecap>[0]) =>
    renderRecap(recap, { sessionId: input.id, party: partyNames(input.transcript, input.characters) });
  const whole = `${header}Transcript:\n${input.transcript}`;
  if (port.counter.count(whole) <= promptBudget(port) - structuredOverhead(port, RECAP_INSTRUCTIONS, RECAP)) {
    return render(await completeStructured(port, ctx, RECAP_INSTRUCTIONS, whole, RECAP));
  }
  const room =
    promptBudget(port) -
    structuredOverhead(port, PART_NOTES_INSTRUCTIONS, CHUNK_NOTES) -
    port.counter.count(partHeader) -
    48;
  if (room < 200) throw new AiUnavailableError(`The context of ${port.model} is too small for a recap.`);
  const chunks = chunkLines(port, input.transcript, room);
  let notes = await mapLimit(chunks, MAP_CONCURRENCY, (chunk, i) =>
    completeStructured(
      port,
      ctx,
      PART_NOTES_INSTRUCTIONS,
      `${partHeader}Part ${i + 1} of ${chunks.length}:\n${chunk}`,
      CHUNK_NOTES,
    ),
  );
  const finalRoom =
    promptBudget(port) -
    structuredOverhead(port, RECAP_INSTRUCTIONS, RECAP) -
    port.counter.count(header) -
    48;
  const mergeRoom = promptBudget(port) - structuredOverhead(port, MERGE_NOTES_INSTRUCTIONS, CHUNK_NOTES) - 48;
  for (let round = 0; round < MAX_MERGE_ROUNDS; round++) {
    const texts = notes.map((n, i) => notesText(n, i, notes.length));
    const all = texts.join('\n\n');
    if (port.counter.count(all) <= finalRoom || notes.length === 1) {
      const content = `${header}Notes on the session's parts, in order:\n\n${clipTokens(port.counter, all, finalRoom)}`;
      return render(await completeStructured(port, ctx, RECAP_INSTRUCTIONS, content, RECAP));
    }
    const groups = groupToFit(port, texts, mergeRoom);
    notes = await mapLimit(groups, MAP_CONCURRENCY, (group) =>
      completeStructured(
        port,
        ctx,
        MERGE_NOTES_INSTRUCTIONS,
        clipTokens(port.counter, group.join('\n\n'), mergeRoom),
        CHUNK_NOTES,
      ),
    );
  }
  throw new AiUnavailableError('The recap could not be condensed to fit the model context.');
}

/**
 * The campaign's block of a recap's header, within CAMPAIGN_SHARE of a request: names and open
 * threads first (each list cut to fit), then as much of the previous session's recap as is left.
 */
function campaignHeader(port: ModelPort, campaign: CampaignContext | undefined): string {
  if (!campaign) return '';
  const budget = Math.floor(promptBudget(port) * CAMPAIGN_SHARE);
  const fits = (c: typeof campaign, recap: string) => port.counter.count(campaignBlock(c, recap)) <= budget;
  let c = { ...campaign, knownNames: [...campaign.knownNames], openThreads: [...campaign.openThreads] };
  while (!fits(c, '') && (c.knownNames.length > 0 || c.openThreads.length > 0)) {
    // The longer list gives way first; the most recent threads are kept.
    if (c.knownNames.length >= c.openThreads.length) c.knownNames = c.knownNames.slice(0, -1);
    else c.openThreads = c.openThreads.slice(1);
  }
  if (!fits(c, '')) return '';
  const previous = campaign.previous?.recap ?? '';
  const room = budget - port.counter.count(campaignBlock(c, '')) - 24;
  const recap = room > 40 ? clipTokens(port.counter, previous, room) : '';
  c = recap ? c : { ...c, previous: undefined };
  return campaignBlock(c, recap);
}

/** A campaign recap from its sessions' recaps (never their transcripts), the longest cut to fit. */
export async function campaignRecap(
  port: ModelPort,
  ctx: AiRequestContext,
  input: CampaignSummaryInput,
): Promise<string> {
  const header = `Campaign: ${input.name}\n\n${whoIsWhoBlock(input.characters)}Session recaps, oldest first:\n\n`;
  const room =
    promptBudget(port) -
    structuredOverhead(port, CAMPAIGN_RECAP_INSTRUCTIONS, CAMPAIGN_RECAP) -
    port.counter.count(header) -
    64;
  const blocks = input.sessions.map(
    (s, i) => `Session ${i + 1}: ${s.name} (${s.date.slice(0, 10)})\n${s.summary.trim()}`,
  );
  // Each session gets an equal share of the room at least; short ones leave theirs to the rest.
  let share = Math.floor(room / Math.max(1, blocks.length));
  const sizes = blocks.map((b) => port.counter.count(b) + 4);
  const spare = sizes.reduce((n, s) => n + Math.max(0, share - s), 0);
  const long = sizes.filter((s) => s > share).length;
  if (long > 0) share += Math.floor(spare / long);
  const text = blocks.map((b) => clipTokens(port.counter, b, Math.max(20, share - 4))).join('\n\n');
  const recap = await completeStructured(
    port,
    ctx,
    CAMPAIGN_RECAP_INSTRUCTIONS,
    header + text,
    CAMPAIGN_RECAP,
  );
  const characters = input.characters ?? [];
  return renderCampaignRecap(recap, {
    sessions: input.sessions,
    party: characters.flatMap((c) => [c.speaker, c.character]),
    characters,
  });
}

/** Notes as the reduce step reads them: compact, every event and quote with its time. */
function notesText(n: ChunkNotes, i: number, count: number): string {
  const times = [...n.events, ...n.quotes]
    .map((e) => e.time)
    .filter(Boolean)
    .sort();
  const span = times.length > 0 ? ` (${times[0]} to ${times.at(-1)})` : '';
  const out = [`Part ${i + 1} of ${count}${span}`];
  for (const e of n.events) out.push(`- [${e.time}] ${e.text}`);
  if (n.people.length) out.push(`People: ${n.people.map((p) => `${p.name} (${p.note})`).join('; ')}`);
  if (n.places.length) out.push(`Places: ${n.places.map((p) => `${p.name} (${p.note})`).join('; ')}`);
  if (n.loot.length) out.push(`Loot: ${n.loot.join('; ')}`);
  if (n.threads.length) out.push(`Threads: ${n.threads.join('; ')}`);
  for (const q of n.quotes) out.push(`Quote [${q.time}] ${q.speaker}: "${q.text}"`);
  return out.join('\n');
}

/**
 * Time-ordered chunks of whole lines of at most `room` tokens, each starting with the last
 * tenth of the previous one marked as overlap. A line longer than a chunk is cut.
 */
export function chunkLines(port: ModelPort, transcript: string, room: number): string[] {
  const overlapRoom = Math.floor(room * OVERLAP_SHARE);
  const bodyRoom = room - overlapRoom - 16;
  const lines = transcript
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => clipTokens(port.counter, l, bodyRoom));
  const chunks = groupToFit(port, lines, bodyRoom, 1);
  return chunks.map((chunk, i) => {
    if (i === 0) return chunk.join('\n');
    const previous = chunks[i - 1]!;
    const overlap: string[] = [];
    let used = 0;
    for (let j = previous.length - 1; j >= 0; j--) {
      const t = port.counter.count(previous[j]!) + 1;
      if (used + t > overlapRoom) break;
      overlap.unshift(previous[j]!);
      used += t;
    }
    return overlap.length > 0
      ? `(overlap, already noted with the previous part)\n${overlap.join('\n')}\n(this part)\n${chunk.join('\n')}`
      : chunk.join('\n');
  });
}

/** Consecutive texts grouped so each group fits `room` tokens, counting `gap` tokens between texts. */
function groupToFit(port: ModelPort, texts: string[], room: number, gap = 2): string[][] {
  const groups: string[][] = [];
  let current: string[] = [];
  let size = 0;
  for (const t of texts) {
    const n = port.counter.count(t) + gap;
    if (current.length > 0 && size + n > room) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(t);
    size += n;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

async function mapLimit<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
