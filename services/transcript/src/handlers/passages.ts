import {
  questionWords,
  type Passage,
  type PassageLine,
  type passagesRpc,
  type RpcRequest,
  type RpcResponse,
  type SpeakerShare,
} from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';
import type { IndexedLine, PassageStore, ScopeSession } from '../db/passage-store.ts';
import {
  indexLines,
  lineKey,
  momentLink,
  PASSAGE_AFTER,
  PASSAGE_BEFORE,
  passageLine,
  rankLines,
} from '../tools/passage-rank.ts';
import { bad } from '../validation.ts';

/** Matching lines read at most: the best by ts_rank (a 4-hour session has about 3,000 lines). */
const CANDIDATE_CAP = 2_000;
/** A term in more lines than this finds candidates only when the question has nothing rarer. */
const COMMON_TERM_LINES = 2_000;
/** The best matching lines whose neighbours are read too (an answer often follows its question). */
const WIDENED = 150;
/** Characters a passage line costs beyond its text (time, speaker, quoting). */
const LINE_OVERHEAD = 24;

type Names = Map<string, Map<string, string>>;

/** svc.transcript.passages: what answers a question in a session or a campaign, best first. */
export const passages =
  (store: PassageStore) =>
  async (req: RpcRequest<typeof passagesRpc>): Promise<RpcResponse<typeof passagesRpc>> => {
    if ((req.transcript_id === undefined) === (req.group_id === undefined)) {
      throw bad('Name one session or one group to search');
    }
    const sessions = await store.scope(req.owner_id, {
      transcriptId: req.transcript_id,
      groupId: req.group_id,
    });
    if (req.transcript_id !== undefined && sessions.length === 0) {
      throw new ServiceError('not_found', 'Transcript not found');
    }
    const out = (p: Passage[], whole = false, speakers: SpeakerShare[] = []) => ({
      sessions: sessions.map((s) => ({
        transcript_id: s.id,
        name: s.name,
        session_timestamp: s.session_timestamp,
        group_id: s.group_id,
      })),
      passages: p,
      whole,
      speakers,
    });
    if (sessions.length === 0) return out([]);
    const ids = sessions.map((s) => s.id);
    const byId = new Map(sessions.map((s) => [s.id, s]));
    const names = await store.speakerNames(ids);

    // One session: who talks most, and the whole text when it fits what the caller can use.
    let speakers: SpeakerShare[] = [];
    if (req.transcript_id !== undefined) {
      const fits = req.whole_within !== undefined && (await store.chars(ids)) <= req.whole_within;
      if (req.speakers || fits) {
        const all = await store.all(ids);
        if (req.speakers) speakers = speakerShares(all, names.get(ids[0]!));
        if (fits && all.length > 0)
          return out([passageOf(byId.get(ids[0]!)!, all, 0, names)], true, speakers);
      }
    }

    const terms = await store.lexemes(questionWords(req.q));
    const stats = await store.stats(ids, terms);
    const present = terms.filter((t) => (stats.df.get(t) ?? 0) > 0);
    if (present.length === 0) return out([], false, speakers);
    const rare = present.filter((t) => stats.df.get(t)! <= COMMON_TERM_LINES);
    const search = rare.length > 0 ? rare : [present.sort((a, b) => stats.df.get(a)! - stats.df.get(b)!)[0]!];
    const matching = await store.matching(ids, search, present, CANDIDATE_CAP);
    const first = rankLines(indexLines(matching), present, stats).slice(0, WIDENED);
    const fetched = indexLines(
      await store.around(
        first.map((r) => ({ tid: r.line.tid, ord: r.line.ord })),
        PASSAGE_BEFORE + PASSAGE_AFTER,
        present,
      ),
    );
    const ranked = rankLines(fetched, present, stats);

    // The best lines not already inside a chosen passage, until the limit or the size is reached.
    const hits: { line: IndexedLine; score: number }[] = [];
    let size = 0;
    for (const best of ranked) {
      if (hits.length >= req.limit || size >= req.max_chars) break;
      const r = { ...best, line: replyTo(fetched, best.line) };
      const covered = hits.some(
        (h) =>
          h.line.tid === r.line.tid &&
          r.line.ord >= h.line.ord - PASSAGE_BEFORE &&
          r.line.ord <= h.line.ord + PASSAGE_AFTER,
      );
      if (covered) continue;
      hits.push(r);
      size += windowOf(fetched, r.line).reduce((n, l) => n + l.body.length + LINE_OVERHEAD, 0);
    }
    // Lines of a window the widening did not reach (a hit at its edge) are read now.
    const missing = hits.filter((h) => windowOf(fetched, h.line).length < PASSAGE_BEFORE + PASSAGE_AFTER + 1);
    if (missing.length > 0) {
      const more = await store.around(
        missing.map((h) => ({ tid: h.line.tid, ord: h.line.ord })),
        PASSAGE_BEFORE + PASSAGE_AFTER,
        [],
      );
      for (const l of more) if (!fetched.has(lineKey(l.tid, l.ord))) fetched.set(lineKey(l.tid, l.ord), l);
    }
    let budget = req.max_chars;
    const chosen: Passage[] = [];
    for (const h of hits) {
      const window = windowOf(fetched, h.line);
      const cost = window.reduce((n, l) => n + l.body.length + LINE_OVERHEAD, 0);
      // The answering line alone when its neighbours no longer fit; nothing once even it does not.
      const lines = cost <= budget || chosen.length === 0 ? window : [h.line];
      const used = lines.reduce((n, l) => n + l.body.length + LINE_OVERHEAD, 0);
      if (chosen.length > 0 && used > budget) break;
      budget -= used;
      const passage = passageOf(byId.get(h.line.tid)!, lines, lines.indexOf(h.line), names);
      chosen.push({ ...passage, score: h.score });
    }
    return out(chosen, false, speakers);
  };

/**
 * A line that asks back what was asked here (a question whose words are mostly the question's)
 * is answered by the next line when someone else says it: quote that reply first.
 */
function replyTo(fetched: Map<string, IndexedLine>, line: IndexedLine): IndexedLine {
  const echoed = Object.keys(line.tf).length;
  if (!line.body.trimEnd().endsWith('?') || echoed * 2 < line.len) return line;
  const next = fetched.get(lineKey(line.tid, line.ord + 1));
  if (!next) return line;
  const speaker = (l: IndexedLine) => passageLine(l).speaker;
  return speaker(next) === null || speaker(next) !== speaker(line) ? next : line;
}

/** The answering line with the lines kept before and after it, in order, within its session. */
function windowOf(fetched: Map<string, IndexedLine>, hit: IndexedLine): IndexedLine[] {
  const out: IndexedLine[] = [];
  for (let d = -PASSAGE_BEFORE; d <= PASSAGE_AFTER; d++) {
    const l = fetched.get(lineKey(hit.tid, hit.ord + d));
    if (l) out.push(l);
  }
  return out;
}

function passageOf(session: ScopeSession, lines: IndexedLine[], hit: number, names: Names): Passage {
  const shown = lines.map((l) => passageLine(l, names.get(session.id)));
  return {
    transcript_id: session.id,
    transcript_name: session.name,
    session_timestamp: session.session_timestamp,
    hit,
    lines: shown,
    link: momentLink(session.id, shown[hit]!),
    score: 0,
  };
}

/** The session's speakers by words spoken, most first (the first three), with their first line. */
function speakerShares(all: IndexedLine[], names: Map<string, string> | undefined): SpeakerShare[] {
  const words = new Map<string, { words: number; first: PassageLine }>();
  let total = 0;
  for (const l of all) {
    const line = passageLine(l, names);
    if (!line.speaker) continue;
    const n = line.text.split(/\s+/).filter(Boolean).length;
    total += n;
    const seen = words.get(line.speaker);
    if (seen) seen.words += n;
    else words.set(line.speaker, { words: n, first: line });
  }
  return [...words]
    .map(([speaker, w]) => ({ speaker, words: w.words, share: total ? w.words / total : 0, first: w.first }))
    .sort((a, b) => b.words - a.words)
    .slice(0, 3);
}
