/**
 * What a stored recap tells the next one: the names it lists (people, places) and the threads it
 * left open, read from its sections, whichever engine wrote it (a model's recap or the offline
 * digest).
 */
const NAME_SECTIONS = /^### (People met|People|Places|Loot and rewards)$/;
const THREAD_SECTIONS = /^### (Open threads and hooks|Open questions|Open threads)$/;

export interface RecapFacts {
  names: string[];
  threads: string[];
  story: string;
}

/** A bullet's text without links and markup. */
function plain(bullet: string): string {
  return bullet
    .replace(/^\s*-\s*/, '')
    .replace(/\[\[?([^\]]+)\]?\]\([^)]*\)/g, '$1')
    .replace(/\*\*/g, '')
    .trim();
}

export function readRecap(text: string): RecapFacts {
  const names: string[] = [];
  const threads: string[] = [];
  const story: string[] = [];
  let section = '';
  for (const line of text.split('\n')) {
    if (line.startsWith('### ')) {
      section = line.trim();
      continue;
    }
    if (section === '### Story' && line.trim()) story.push(line.trim());
    if (!line.trim().startsWith('- ') || /^- None\.?$/.test(line.trim())) continue;
    if (NAME_SECTIONS.test(section)) {
      for (const m of line.matchAll(/\*\*([^*]{2,60})\*\*/g)) names.push(m[1]!.trim());
    } else if (THREAD_SECTIONS.test(section)) {
      threads.push(plain(line));
    }
  }
  return { names: [...new Set(names)], threads, story: story.join('\n') };
}
