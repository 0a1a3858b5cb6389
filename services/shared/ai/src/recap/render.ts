import { CAMPAIGN_SUMMARY_MAX, formatOffset, SUMMARY_MAX } from '@chronicler/contracts';
import type { CampaignRecap, Recap } from './schema.ts';

/**
 * Recaps as the markdown the app stores and shows: fixed sections, every moment a link to its
 * time in the viewer (`/sessions/{id}#t=HH:MM:SS`), at most 10,000 characters (the summary
 * limit) with whole bullets dropped from the longest lists first when a recap is longer.
 */
export const RECAP_SECTIONS = [
  '### Story',
  '### Key moments',
  '### People met',
  '### Places',
  '### Loot and rewards',
  '### Open threads and hooks',
  '### Memorable quotes',
] as const;

/** "1:02:03", "01:02:03" or "62:03" as HH:MM:SS; null for anything else. */
function normalizeTime(raw: string): string | null {
  const m = /(\d{1,3}):([0-5]\d)(?::([0-5]\d))?/.exec(raw);
  if (!m) return null;
  const seconds =
    m[3] === undefined
      ? Number(m[1]) * 60 + Number(m[2])
      : Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
  return formatOffset(seconds);
}

/** A link to a moment of a session: the viewer scrolls to it. */
function timeLink(time: string, sessionId?: string): string {
  return `[[${time}]](${sessionId ? `/sessions/${sessionId}` : ''}#t=${time})`;
}

/** The party, as names to keep out of "people met": the speakers and the characters they play. */
export function partyMatcher(names: string[]): (name: string) => boolean {
  const key = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^\p{L}\p{N}' ]/gu, '')
      .trim();
  const full = new Set(names.map(key).filter(Boolean));
  const first = new Set([...full].map((n) => n.split(' ')[0]!).filter((n) => n.length > 2));
  return (name) => {
    const k = key(name);
    return full.has(k) || first.has(k.split(' ')[0]!);
  };
}

const bullets = (items: string[]) => (items.length > 0 ? items.map((i) => `- ${i}`).join('\n') : '- None.');
const named = (items: { name: string; note: string }[]) =>
  items.map((p) => (p.note.trim() ? `**${p.name.trim()}**: ${p.note.trim()}` : `**${p.name.trim()}**`));

export interface RenderOptions {
  sessionId?: string;
  /** Names of the party (speakers, their characters): never listed as people met. */
  party: string[];
}

export function renderRecap(recap: Recap, opts: RenderOptions): string {
  const isParty = partyMatcher(opts.party);
  const moment = (time: string, text: string) => {
    const t = normalizeTime(time);
    return t ? `${text.trim()} ${timeLink(t, opts.sessionId)}` : text.trim();
  };
  const lists: string[][] = [
    recap.key_moments.filter((m) => m.text.trim()).map((m) => moment(m.time, m.text)),
    named(recap.people.filter((p) => p.name.trim() && !isParty(p.name))),
    named(recap.places.filter((p) => p.name.trim())),
    recap.loot.filter((l) => l.trim()).map((l) => l.trim()),
    recap.threads.filter((l) => l.trim()).map((l) => l.trim()),
    recap.quotes
      .filter((q) => q.text.trim())
      .map((q) =>
        moment(q.time, `"${q.text.trim().replace(/^"|"$/g, '')}" (${q.speaker.trim() || 'unknown'})`),
      ),
  ];
  const story =
    recap.story
      .map((p) => p.trim())
      .filter(Boolean)
      .join('\n\n') || 'None.';
  const build = () =>
    [
      `${RECAP_SECTIONS[0]}\n${story}`,
      ...lists.map((items, i) => `${RECAP_SECTIONS[i + 1]}\n${bullets(items)}`),
    ].join('\n\n');
  let text = build();
  while (text.length > SUMMARY_MAX) {
    const longest = lists.reduce((a, b) => (b.length > a.length ? b : a));
    if (longest.length <= 1) return text.slice(0, SUMMARY_MAX);
    longest.pop();
    text = build();
  }
  return text;
}

/** A session as the campaign recap lists it. */
export interface CampaignSession {
  id?: string;
  name: string;
  date: string;
}

export function renderCampaignRecap(
  recap: CampaignRecap,
  opts: {
    sessions: CampaignSession[];
    party: string[];
    characters: { speaker: string; character: string }[];
  },
): string {
  const isParty = partyMatcher(opts.party);
  const lineOf = new Map(recap.sessions.map((s) => [s.number, s.line.trim()]));
  const sessions = opts.sessions.map((s, i) => {
    const title = s.id ? `[${s.name}](/sessions/${s.id})` : s.name;
    return `${title} (${s.date.slice(0, 10)})${lineOf.get(i + 1) ? `: ${lineOf.get(i + 1)}` : ''}`;
  });
  const party = opts.characters.map((c) => `**${c.character}** (${c.speaker})`);
  const text = [
    `### Story so far\n${
      recap.story
        .map((p) => p.trim())
        .filter(Boolean)
        .join('\n\n') || 'None.'
    }`,
    `### The party\n${bullets(party)}`,
    `### People met\n${bullets(named(recap.people.filter((p) => p.name.trim() && !isParty(p.name))))}`,
    `### Places\n${bullets(named(recap.places.filter((p) => p.name.trim())))}`,
    `### Open threads\n${bullets(recap.threads.filter((t) => t.trim()))}`,
    `### Sessions\n${bullets(sessions)}`,
  ].join('\n\n');
  return text.length > CAMPAIGN_SUMMARY_MAX ? text.slice(0, CAMPAIGN_SUMMARY_MAX) : text;
}
