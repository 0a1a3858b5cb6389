/**
 * The campaign codex with a model: one session read in parts that fit the model's real context
 * (the same line chunks a recap uses), one after the other, each given the codex so far and what
 * the earlier parts found, each answering structured entries (people met, places, items,
 * factions, open threads). The model names; the transcript places: every entry's mentions are
 * the lines that say its name or an alias, so a name the text never says is left out (a thread,
 * a summary of its own, keeps no mention). One call chain per content version (the summary
 * service's keeper asks once per version).
 */
import {
  CODEX_ALIASES_MAX,
  CODEX_DESCRIPTION_MAX,
  CODEX_MENTIONS_PER_SESSION,
  CODEX_NAME_MAX,
  type CodexFinding,
  type CodexKind,
  type KnownEntry,
} from '@chronicler/contracts';
import { Type } from '@sinclair/typebox';
import {
  AiRateLimitedError,
  AiUnavailableError,
  type AiRequestContext,
  type CodexExtractInput,
} from '../engine.ts';
import { codexLines } from '../offline/codex.ts';
import { partyNames } from '../party.ts';
import { partyMatcher } from '../recap/render.ts';
import { namesPattern } from '../story.ts';
import { whoIsWhoBlock } from './prompts.ts';
import { chunkLines, promptBudget } from './recap.ts';
import { clipTokens, completeStructured, structuredOverhead, type ModelPort } from './structured.ts';

const strict = { additionalProperties: false } as const;
const CodexNotesSchema = Type.Object(
  {
    entries: Type.Array(
      Type.Object(
        {
          kind: Type.Union([
            Type.Literal('person'),
            Type.Literal('place'),
            Type.Literal('item'),
            Type.Literal('faction'),
            Type.Literal('thread'),
          ]),
          name: Type.String({ description: 'As the transcript spells it; for a thread, a short title' }),
          aliases: Type.Array(Type.String(), { description: 'Other names the transcript uses for it' }),
          description: Type.String({ description: 'One or two sentences from what the transcript says' }),
        },
        strict,
      ),
    ),
  },
  strict,
);
const CODEX_NOTES = { name: 'codex_entries', schema: CodexNotesSchema };

const CODEX_INSTRUCTIONS = [
  'You keep the codex of a tabletop role-playing campaign: the people the party meets (never the',
  'party: the speakers and the characters they play), places, items, factions and open threads.',
  'Read the part of a session below (lines look like "[HH:MM:SS] Speaker: text") and list what it',
  'establishes: each entry with its kind, its name as the transcript spells it, other names used for',
  'it, and a description of one or two sentences from what the text says. An entry already in the',
  'codex keeps its name (add to it only what is new). Leave out spells, abilities, rules and game',
  'terms, the real people at the table, and anything said about the show, its sponsors or its',
  'audience. Threads are open questions or tasks of the story, named in a few words. An empty list',
  'when the part establishes nothing.',
].join('\n');

/** Share of a request the codex so far may take. */
const KNOWN_SHARE = 0.2;
/** Tries of one part when the user's AI limit is met on an automatic reading. */
const LIMIT_TRIES = 6;

function knownBlock(known: KnownEntry[], found: Map<string, Draft>): string {
  const all = [
    ...known.filter((k) => !k.hidden).map((k) => `${k.kind}: ${[k.name, ...k.aliases].join(' / ')}`),
    ...[...found.values()].map((d) => `${d.kind}: ${[d.name, ...d.aliases].join(' / ')}`),
  ];
  return all.length ? `The codex so far:\n${all.join('\n')}\n\n` : 'The codex is empty so far.\n\n';
}

interface Draft {
  kind: CodexKind;
  name: string;
  aliases: string[];
  description: string;
}

const wait = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    });
  });

export async function extractCodexWithModel(
  port: ModelPort,
  ctx: AiRequestContext,
  input: CodexExtractInput,
): Promise<CodexFinding[]> {
  const header = `Session: ${input.name}\n\n${whoIsWhoBlock(input.characters)}`;
  const overhead =
    structuredOverhead(port, CODEX_INSTRUCTIONS, CODEX_NOTES) + port.counter.count(header) + 48;
  const knownRoom = Math.floor(promptBudget(port) * KNOWN_SHARE);
  const room = promptBudget(port) - overhead - knownRoom;
  if (room < 200)
    throw new AiUnavailableError(
      `The context of ${port.model} is too small to read a session into the codex.`,
    );
  const parts = chunkLines(port, input.transcript, room);
  const found = new Map<string, Draft>();
  const key = (s: string) => s.toLowerCase();
  const knownNames = new Map<string, KnownEntry>();
  for (const k of input.known ?? []) for (const n of [k.name, ...k.aliases]) knownNames.set(key(n), k);
  for (const [i, part] of parts.entries()) {
    const known = clipTokens(port.counter, knownBlock(input.known ?? [], found), knownRoom);
    const content = `${header}${known}Part ${i + 1} of ${parts.length}:\n${part}`;
    let notes;
    for (let attempt = 0; ; attempt++) {
      try {
        notes = await completeStructured(port, ctx, CODEX_INSTRUCTIONS, content, CODEX_NOTES);
        break;
      } catch (err) {
        // A reading the system makes waits for the user's limit instead of losing the parts read.
        if (!(err instanceof AiRateLimitedError) || !ctx.automatic || attempt >= LIMIT_TRIES) throw err;
        await wait(Math.max(1_000, err.retryAfterMs), ctx.signal);
      }
    }
    for (const e of notes.entries) {
      const name = e.name.replace(/\s+/g, ' ').trim().slice(0, CODEX_NAME_MAX);
      if (!name) continue;
      const prior = knownNames.get(key(name));
      const k = key(prior?.name ?? name);
      const draft = found.get(k) ?? {
        kind: prior?.confirmed ? prior.kind : e.kind,
        name: prior?.name ?? name,
        aliases: [],
        description: '',
      };
      for (const a of e.aliases.map((x) => x.trim().slice(0, CODEX_NAME_MAX))) {
        if (a && key(a) !== key(draft.name) && !draft.aliases.some((b) => key(b) === key(a)))
          draft.aliases.push(a);
      }
      draft.description ||= e.description.trim().slice(0, CODEX_DESCRIPTION_MAX);
      found.set(k, draft);
    }
  }
  return placeFindings(input, [...found.values()]);
}

/** Each draft's mentions are the lines naming it; the party and names the text never says go. */
function placeFindings(input: CodexExtractInput, drafts: Draft[]): CodexFinding[] {
  const lines = codexLines(input.transcript).filter((l) => l.text);
  const isParty = partyMatcher(partyNames(input.transcript, input.characters));
  const out: CodexFinding[] = [];
  for (const d of drafts) {
    if (d.kind !== 'thread' && isParty(d.name)) continue;
    const aliases = d.aliases.slice(0, CODEX_ALIASES_MAX);
    const re = d.kind === 'thread' ? null : namesPattern([d.name, ...aliases]);
    const hits = re ? lines.filter((l) => re.test(l.text)) : [];
    if (d.kind !== 'thread' && hits.length === 0) continue;
    const spread =
      hits.length <= CODEX_MENTIONS_PER_SESSION
        ? hits
        : Array.from(
            { length: CODEX_MENTIONS_PER_SESSION },
            (_, i) => hits[Math.floor((i * hits.length) / CODEX_MENTIONS_PER_SESSION)]!,
          );
    out.push({
      kind: d.kind,
      name: d.name,
      aliases,
      description: d.description,
      count: hits.length,
      mentions: spread.map((l) => ({ line: l.pos, seconds: l.seconds })),
    });
  }
  return out.sort((a, b) => b.count - a.count).slice(0, 300);
}
