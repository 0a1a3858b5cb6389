// `pnpm eval`: how often the offline fallback quotes the line that answers a question, on the
// CRD3 question set (Critical Role Dungeons and Dragons Dataset, Rameshkumar and Bailey, ACL
// 2020, CC BY-SA 4.0; see ../shared/data/crd3/LICENSE) and on a hand-written home game. A
// benchmark, not a test: it prints one table.
import { runQuestions } from './questions.ts';

const started = Date.now();
const results = runQuestions();
const rows = [...new Set(results.map((r) => r.set))].map((set) => {
  const rs = results.filter((r) => r.set === set);
  return {
    set,
    questions: rs.length,
    'answer quoted': `${rs.filter((r) => r.quoted).length}/${rs.length}`,
    'quoted first': `${rs.filter((r) => r.rank === 1).length}/${rs.length}`,
  };
});
console.table(rows);
for (const r of results.filter((x) => !x.quoted)) console.log(`not quoted: ${r.set}: ${r.question}`);
const all = results.filter((r) => r.quoted).length;
console.log(
  `answer quoted for ${all} of ${results.length} questions (${((Date.now() - started) / 1000).toFixed(1)} s)`,
);

// The codex section: the offline codex against the names the human synopses give (codex.ts).
const { printCodexEval, runCodexEval } = await import('./codex.ts');
printCodexEval(runCodexEval());
