// Hand-written sessions for `pnpm eval` (home-game.ts, boston-1925.ts, kestrel-run.ts): a script
// of `Speaker: line` text read as a stored transcript, about a minute apart.

/** The script as a stored transcript: about a minute apart, a few seconds per line. */
export function scriptTranscript(script: string): { transcript: string; times: string[] } {
  const times: string[] = [];
  let at = 0;
  const lines = script.split('\n').map((line) => {
    const h = Math.floor(at / 3600);
    const m = Math.floor((at % 3600) / 60);
    const s = at % 60;
    const time = [h, m, s].map((n) => String(n).padStart(2, '0')).join(':');
    times.push(time);
    at += 20 + Math.round(line.length / 3);
    return `[${time}] ${line}`;
  });
  return { transcript: lines.join('\n'), times };
}

/** The 0-based line of the script that holds `text` (it must hold it once). */
export function lineOf(script: string, text: string): number {
  const hits = script.split('\n').flatMap((line, i) => (line.includes(text) ? [i] : []));
  if (hits.length !== 1) throw new Error(`"${text}" is on ${hits.length} lines of the script, not one`);
  return hits[0]!;
}
