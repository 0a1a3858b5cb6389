/**
 * The offline digest of a campaign, from its sessions' summaries only (a model's recaps or the
 * offline digests): a line per session linking to it, the party from the "Who Is Who" map, the
 * people and places the summaries list with the sessions that name them, and the open threads
 * of the latest sessions.
 */
import { CAMPAIGN_SUMMARY_MAX, withoutOfflineMarker } from '@chronicler/contracts';
import type { CampaignSummaryInput, SessionDigest } from '../engine.ts';
import { partyMatcher } from '../recap/render.ts';
import { cut, offlineText } from './lines.ts';

/** The bullets under the `###` headings matching `heading` in a summary. */
export function sectionBullets(markdown: string, heading: RegExp): string[] {
  const out: string[] = [];
  let inside = false;
  for (const line of withoutOfflineMarker(markdown).split('\n')) {
    if (/^#{1,6}\s/.test(line)) inside = heading.test(line);
    else if (inside && /^\s*[-*]\s+/.test(line)) {
      const item = line.replace(/^\s*[-*]\s+/, '').trim();
      if (item && !/^none( found)?\.?$/i.test(item)) out.push(item);
    }
  }
  return out;
}

/** The bold name a bullet starts with ("**Hedda Vorn**: ..."). */
const boldName = (bullet: string) => /^\*\*([^*]+)\*\*/.exec(bullet)?.[1]?.trim() ?? null;

/** A session's first key moment (or the start of its summary), as one line. */
function sessionLine(s: SessionDigest): string {
  const moment = sectionBullets(s.summary, /key moments|what happened/i)[0];
  const first =
    moment ??
    withoutOfflineMarker(s.summary)
      .split('\n')
      .find((l) => l.trim() && !l.startsWith('#')) ??
    '';
  return cut(first.replace(/^\s*[-*]\s+/, '').trim(), 240);
}

export function campaignDigest(input: CampaignSummaryInput): string {
  const characters = input.characters ?? [];
  const isParty = partyMatcher(characters.flatMap((c) => [c.speaker, c.character]));
  const tally = (heading: RegExp) => {
    const seen = new Map<string, { name: string; sessions: string[] }>();
    for (const s of input.sessions) {
      for (const bullet of sectionBullets(s.summary, heading)) {
        const name = boldName(bullet);
        if (!name || isParty(name)) continue;
        const entry = seen.get(name.toLowerCase()) ?? { name, sessions: [] };
        if (!entry.sessions.includes(s.name)) entry.sessions.push(s.name);
        seen.set(name.toLowerCase(), entry);
      }
    }
    return [...seen.values()]
      .sort((a, b) => b.sessions.length - a.sessions.length)
      .slice(0, 15)
      .map(
        (e) =>
          `**${e.name}**: in ${e.sessions.length === 1 ? e.sessions[0] : `${e.sessions.length} sessions, last ${e.sessions.at(-1)}`}`,
      );
  };
  const threads = input.sessions
    .slice(-3)
    .reverse()
    .flatMap((s) =>
      sectionBullets(s.summary, /open (threads|questions)/i)
        .slice(0, 4)
        .map((t) => `${t} (${s.name})`),
    );
  const list = (items: string[]) =>
    items.length > 0 ? items.map((i) => `- ${i}`).join('\n') : '- None found.';
  const sessions = input.sessions.map((s) => {
    const title = s.id ? `[${s.name}](/sessions/${s.id})` : s.name;
    const line = sessionLine(s);
    return `${title} (${s.date.slice(0, 10)})${line ? `: ${line}` : ''}`;
  });
  const text = offlineText(
    [
      `### Sessions\n${list(sessions)}`,
      `### The party\n${list(characters.map((c) => `**${c.character}** (${c.speaker})`))}`,
      `### People\n${list(tally(/people/i))}`,
      `### Places\n${list(tally(/places/i))}`,
      `### Open threads\n${list(threads)}`,
    ].join('\n\n'),
  );
  return text.slice(0, CAMPAIGN_SUMMARY_MAX);
}
