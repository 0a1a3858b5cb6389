/**
 * People and places of a transcript by how often and how they are named: proper names
 * (capitalised where grammar does not explain it, `extractProperNames`), the party's left
 * out, each a place when it mostly follows a word of place ("in", "to", "from", ...), and
 * quoted where it is first named.
 */
import { extractProperNames } from '@chronicler/contracts';
import { partyMatcher } from '../recap/render.ts';
import type { Line } from './lines.ts';

export interface NamedThing {
  name: string;
  count: number;
  kind: 'person' | 'place';
  /** The line that names it first. */
  first: Line;
}

const LOCATIVE =
  /\b(?:in|at|to|from|into|toward|towards|near|through|across|beyond|outside|inside|below|beneath|above|around|reach|enter|leave|visit)\s+(?:the\s+)?$/i;

export function namedThings(lines: Line[], party: string[]): NamedThing[] {
  const isParty = partyMatcher(party);
  const text = lines.map((l) => l.text).join('\n');
  const names = extractProperNames([{ text }], { limit: 60, minCount: 2 }).filter((n) => !isParty(n.name));
  const out: NamedThing[] = [];
  for (const n of names) {
    const pattern = new RegExp(
      `(^|[^\\p{L}])${n.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}])`,
      'gu',
    );
    let first: Line | null = null;
    let located = 0;
    let seen = 0;
    for (const l of lines) {
      for (const m of l.text.matchAll(pattern)) {
        first ??= l;
        seen += 1;
        if (LOCATIVE.test(l.text.slice(Math.max(0, m.index - 24), m.index + m[1]!.length))) located += 1;
      }
    }
    if (!first) continue;
    out.push({
      name: n.name,
      count: Math.max(seen, n.count),
      kind: located >= Math.max(1, seen * 0.4) ? 'place' : 'person',
      first,
    });
  }
  return out.sort((a, b) => b.count - a.count);
}
