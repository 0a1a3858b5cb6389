// `pnpm eval`: how often the offline fallback quotes the line that answers a question, on the
// CRD3 question set (Critical Role Dungeons and Dragons Dataset, Rameshkumar and Bailey, ACL
// 2020, CC BY-SA 4.0; see ../shared/data/crd3/LICENSE) and on eleven hand-written games. A
// benchmark, not a test: it prints one table, tuned and untuned questions apart.
//
// It runs the product's own path, minus the bus: the sessions are stored in the transcript
// service's schema (PGlite), its full-text index is filled by its triggers, its passage search
// answers, and the offline engine's reply is judged. Chat asks each session on its own; the
// campaign ask puts every session (six episodes, eleven hand-written games) in one campaign and
// asks across all of them.
import { formatOffset } from '@chronicler/contracts';
import { answerText } from '../../services/shared/ai/src/offline/answer.ts';
import { OFFLINE_RETRIEVAL_PLAN } from '../../services/shared/ai/src/offline/engine.ts';
import { openPassageBed } from '../support/passage-bed.ts';
import { CRD3_EPISODES } from '../support/crd3.ts';
import { timedEpisode } from './data.ts';
import { BOSTON_QUESTIONS, bostonTranscript } from './boston-1925.ts';
import { HOME_QUESTIONS, homeGameTranscript } from './home-game.ts';
import { KESTREL_QUESTIONS, kestrelTranscript } from './kestrel-run.ts';
import { TALLOW_QUESTIONS, tallowTranscript } from './tallow-score.ts';
import { WOLFJAW_QUESTIONS, wolfjawTranscript } from './wolfjaw-pass.ts';
import { MANCHESTER_QUESTIONS, manchesterTranscript } from './manchester-nights.ts';
import { RUSTWATER_QUESTIONS, rustwaterTranscript } from './rustwater-blues.ts';
import { GULL_POINT_QUESTIONS, gullPointTranscript } from './gull-point.ts';
import { JOLLY_PANCAKE_QUESTIONS, jollyPancakeTranscript } from './jolly-pancake.ts';
import { VELVET_ALIBI_QUESTIONS, velvetAlibiTranscript } from './velvet-alibi.ts';
import { KIRI_RIVER_QUESTIONS, kiriRiverTranscript } from './kiri-river.ts';
import { QUESTIONS } from './questions.ts';

interface Asked {
  set: string;
  question: string;
  tuned: boolean;
  /** The session and time of the line that answers. */
  sessionId: string;
  time: string;
}

interface Result {
  mode: 'chat' | 'campaign ask';
  asked: Asked;
  /** The answering line is among the quoted lines. */
  quoted: boolean;
  /** It is the first line quoted. */
  first: boolean;
}

const started = Date.now();
const bed = await openPassageBed();
const groupId = crypto.randomUUID();
const ids = new Map<string, string>();
const transcripts = new Map<string, ReturnType<typeof timedEpisode>>();
for (const [i, episode] of CRD3_EPISODES.entries()) {
  const ep = timedEpisode(episode);
  transcripts.set(episode, ep);
  const date = new Date(Date.UTC(2015, 0, 1 + 7 * i)).toISOString();
  ids.set(episode, await bed.add({ name: episode, content: ep.transcript, groupId, date }));
}
// The hand-written sessions: the home game, and ten written later (a 1920s Boston
// investigation, a space-opera game, a Blades in the Dark-style heist, an online Pathfinder-like
// game, a Vampire-style chronicle in Manchester, a post-apocalyptic western one-shot at a
// convention, a Masks-style teen superhero game, a children's pirate game at a kitchen
// table, a 1940s Los Angeles noir mystery and a samurai folklore game), in the same campaign as
// the episodes.
const SCRIPTED = [
  { set: 'home game', ...homeGameTranscript(), questions: HOME_QUESTIONS },
  { set: 'Boston 1925', ...bostonTranscript(), questions: BOSTON_QUESTIONS },
  { set: 'Kestrel run', ...kestrelTranscript(), questions: KESTREL_QUESTIONS },
  { set: 'Tallow score', ...tallowTranscript(), questions: TALLOW_QUESTIONS },
  { set: 'Wolfjaw Pass', ...wolfjawTranscript(), questions: WOLFJAW_QUESTIONS },
  { set: 'Manchester nights', ...manchesterTranscript(), questions: MANCHESTER_QUESTIONS },
  { set: 'Rustwater Blues', ...rustwaterTranscript(), questions: RUSTWATER_QUESTIONS },
  { set: 'Gull Point', ...gullPointTranscript(), questions: GULL_POINT_QUESTIONS },
  { set: 'Jolly Pancake', ...jollyPancakeTranscript(), questions: JOLLY_PANCAKE_QUESTIONS },
  { set: 'Velvet Alibi', ...velvetAlibiTranscript(), questions: VELVET_ALIBI_QUESTIONS },
  { set: 'Kiri River', ...kiriRiverTranscript(), questions: KIRI_RIVER_QUESTIONS },
];
for (const s of SCRIPTED) ids.set(s.set, await bed.add({ name: s.set, content: s.transcript, groupId }));

const asked: Asked[] = [
  ...QUESTIONS.map((q) => ({
    set: `CRD3 ${q.episode}`,
    question: q.question,
    tuned: q.tuned,
    sessionId: ids.get(q.episode)!,
    time: formatOffset(transcripts.get(q.episode)!.turns[q.turn]!.seconds),
  })),
  ...SCRIPTED.flatMap((s) =>
    s.questions.map((q) => ({
      set: s.set,
      question: q.question,
      tuned: q.tuned,
      sessionId: ids.get(s.set)!,
      time: s.times[q.turn]!,
    })),
  ),
];

/** The quoted lines of an offline reply, in order, as `session:time` (chat: the one session). */
function quotedLines(reply: string, sessionId: string): string[] {
  const out: string[] = [];
  for (const m of reply.matchAll(/^> \[(\d\d:\d\d:\d\d)\](?:\(\/sessions\/([^#]+)#t=[^)]+\))?/gm)) {
    out.push(`${m[2] ?? sessionId}:${m[1]}`);
  }
  return out;
}

const results: Result[] = [];
for (const a of asked) {
  for (const mode of ['chat', 'campaign ask'] as const) {
    const campaign = mode === 'campaign ask';
    const found = await bed.find({
      q: a.question,
      ...(campaign ? { group_id: groupId } : { transcript_id: a.sessionId }),
      limit: OFFLINE_RETRIEVAL_PLAN.limit,
      max_chars: OFFLINE_RETRIEVAL_PLAN.maxChars,
    });
    const reply = answerText({
      name: campaign ? 'Campaign' : a.set,
      scope: campaign ? 'campaign' : 'session',
      found,
      history: [],
      question: a.question,
    });
    const lines = quotedLines(reply, a.sessionId);
    const target = `${a.sessionId}:${a.time}`;
    results.push({ mode, asked: a, quoted: lines.includes(target), first: lines[0] === target });
  }
}
await bed.close();

const rows: Record<string, string | number>[] = [];
for (const mode of ['chat', 'campaign ask'] as const) {
  for (const [label, match] of [
    ['CRD3', (a: Asked) => a.set.startsWith('CRD3')],
    ...SCRIPTED.map((s) => [s.set, (a: Asked) => a.set === s.set] as const),
  ] as const) {
    for (const tuned of [true, false]) {
      const rs = results.filter((r) => r.mode === mode && match(r.asked) && r.asked.tuned === tuned);
      if (rs.length === 0) continue;
      rows.push({
        mode,
        set: label,
        questions: `${rs.length} ${tuned ? 'tuned' : 'untuned'}`,
        'answer quoted': `${rs.filter((r) => r.quoted).length}/${rs.length}`,
        'quoted first': `${rs.filter((r) => r.first).length}/${rs.length}`,
      });
    }
  }
}
console.table(rows);
for (const r of results.filter((x) => !x.first)) {
  console.log(
    `${r.quoted ? 'not first' : 'not quoted'}: ${r.mode}: ${r.asked.set}${r.asked.tuned ? '' : ' (untuned)'}: ${r.asked.question}`,
  );
}
console.log(`${results.length} answers judged in ${((Date.now() - started) / 1000).toFixed(1)} s`);

// The codex section: the offline codex against the names the human synopses give (codex.ts).
const { printCodexEval, runCodexEval } = await import('./codex.ts');
printCodexEval(runCodexEval());
