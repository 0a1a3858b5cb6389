import { describe, expect, it } from 'vitest';
import { EMBED_LIMITS, recapEmbed } from './recap-post.ts';

const URL = 'https://chronicler.test/sessions/5b0c4a7e-0000-4000-8000-000000000001';

function withinLimits(e: ReturnType<typeof recapEmbed>): void {
  expect(e.title!.length).toBeLessThanOrEqual(EMBED_LIMITS.title);
  expect(e.description!.length).toBeLessThanOrEqual(EMBED_LIMITS.description);
  expect(e.fields!.length).toBeLessThanOrEqual(EMBED_LIMITS.fields);
  for (const f of e.fields!) {
    expect(f.name.length).toBeLessThanOrEqual(EMBED_LIMITS.fieldName);
    expect(f.value.length).toBeLessThanOrEqual(EMBED_LIMITS.fieldValue);
    expect(f.value.length).toBeGreaterThan(0);
  }
  expect(e.footer!.text.length).toBeLessThanOrEqual(EMBED_LIMITS.footer);
  const total =
    e.title!.length +
    e.description!.length +
    e.footer!.text.length +
    e.fields!.reduce((n, f) => n + f.name.length + f.value.length, 0);
  expect(total).toBeLessThanOrEqual(EMBED_LIMITS.total);
}

describe('the recap embed', () => {
  it('tells the story in a few lines, lists the open threads, links the session, with absolute moment links', () => {
    const summary = [
      '### Story',
      'The party reached [the tower](/sessions/x#t=00:01:02) at dusk.',
      'Vex scouted ahead.',
      '',
      '### Key moments',
      '- A dragon circled above',
      '### Open threads and hooks',
      '- Who sent the letter?',
      '- The sealed door below',
    ].join('\n');
    const e = recapEmbed(
      { name: 'Session 12', summary, started_at: '2026-11-26T20:00:00.000Z' },
      URL,
      'https://chronicler.test',
    );
    expect(e.title).toBe('Session 12');
    expect(e.url).toBe(URL);
    expect(e.description).toBe(
      'The party reached [the tower](https://chronicler.test/sessions/x#t=00:01:02) at dusk.\nVex scouted ahead.',
    );
    expect(e.fields).toEqual([
      { name: 'Open threads', value: '- Who sent the letter?\n- The sealed door below' },
      { name: 'Full session', value: URL },
    ]);
    expect(e.footer!.text).toBe('Chronicler · 2026-11-26');
    withinLimits(e);
  });

  it('keeps a recap without sections, and one without open threads, to a story and the link', () => {
    const e = recapEmbed(
      { name: 'Night', summary: 'They talked.\n\nThen slept.', started_at: '2026-01-01T00:00:00Z' },
      URL,
      null,
    );
    expect(e.description).toBe('They talked.\nThen slept.');
    expect(e.fields!.map((f) => f.name)).toEqual(['Full session']);
  });

  it('truncates every part cleanly at a word, within each of Discord limits and the total', () => {
    const word = 'lorem ';
    const long = word.repeat(2000);
    const summary = [
      '### Story',
      ...Array.from({ length: 20 }, () => long),
      '### Open threads',
      ...Array.from({ length: 400 }, (_, i) => `- thread ${i} ${long.slice(0, 200)}`),
    ].join('\n');
    const e = recapEmbed({ name: long, summary, started_at: '2026-01-01T00:00:00Z' }, URL, null);
    withinLimits(e);
    expect(e.title!.endsWith('…')).toBe(true);
    expect(e.title!).toMatch(/^(lorem )*lorem…$/);
    expect(e.description!.endsWith('…')).toBe(true);
    expect(e.fields![0]!.value.endsWith('…')).toBe(true);
  });
});
