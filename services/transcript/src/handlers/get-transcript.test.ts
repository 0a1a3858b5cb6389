import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger, EventOutbox, ServiceError } from '@chronicler/kit';
import { openServiceTestbed, type ServiceTestbed } from '@chronicler/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LineEditStore } from '../db/line-edits.ts';
import { LiveStore } from '../db/live-store.ts';
import { TranscriptStore } from '../db/store.ts';
import { getTranscriptIfChanged } from './get-transcript.ts';
import { listPage, listPageIfChanged } from './list-page.ts';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

let bed: ServiceTestbed;
let store: TranscriptStore;
let live: LiveStore;
let edits: LineEditStore;
let read: ReturnType<typeof getTranscriptIfChanged>;

beforeAll(async () => {
  bed = await openServiceTestbed({ schema: 'transcript', migrationsDir });
  store = new TranscriptStore(bed.db, bed.schema);
  const outbox = new EventOutbox({
    db: bed.db,
    schema: bed.schema,
    bus: bed.bus,
    logger: createLogger(null, { level: 'silent' }),
  });
  live = new LiveStore(bed.db, bed.schema, outbox);
  edits = new LineEditStore(bed.db, bed.schema, 500_000);
  read = getTranscriptIfChanged(store, live);
});
afterAll(async () => {
  await bed?.close();
});

async function manualSession(
  owner: string,
  content: string,
  sessionTimestamp = '2024-05-01T18:00:00.000Z',
): Promise<string> {
  const item = await store.createManual(
    owner,
    {
      name: 'The tavern',
      sessionTimestamp,
      summary: '',
      content,
      preview: content.slice(0, 100),
      groupId: null,
    },
    async () => undefined,
  );
  return item.id;
}

/** The version of a full answer (fails the test on `unchanged`). */
function versionOf(answer: Awaited<ReturnType<typeof read>>): string | null {
  if (!('transcript' in answer)) throw new Error('expected a transcript, got unchanged');
  return answer.version;
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ServiceError);
  return (err as ServiceError).code;
}

describe('svc.transcript.get-if-changed', () => {
  it('answers unchanged for the version the caller holds, and the new transcript after any write', async () => {
    const owner = randomUUID();
    const id = await manualSession(owner, 'GM: You enter the tavern.\nAria: I order an ale.');
    const first = await read({ owner_id: owner, id });
    const v1 = versionOf(first);
    expect(v1).toMatch(/^[0-9]+\.0$/);
    expect(first).toMatchObject({
      transcript: { id, name: 'The tavern', content: expect.stringContaining('ale') },
    });

    // Nothing written: the same version, and no transcript crosses back.
    expect(await read({ owner_id: owner, id, known: v1! })).toEqual({ version: v1, unchanged: true });
    // A reader holding an older or a foreign version gets the transcript.
    expect(versionOf(await read({ owner_id: owner, id, known: '1.0' }))).toBe(v1);

    // A rename: a new version with the new name.
    await store.rename(owner, id, 'The dragon');
    const renamed = await read({ owner_id: owner, id, known: v1! });
    const v2 = versionOf(renamed);
    expect(v2).not.toBe(v1);
    expect(renamed).toMatchObject({ transcript: { name: 'The dragon' } });

    // A line edited in place.
    const edited = await edits.edit(owner, id, 2, { text: 'I order a mead.' });
    expect(edited.kind).toBe('edited');
    const afterEdit = await read({ owner_id: owner, id, known: v2! });
    const v3 = versionOf(afterEdit);
    expect(v3).not.toBe(v2);
    expect(afterEdit).toMatchObject({ transcript: { content: expect.stringContaining('mead') } });
    expect(await read({ owner_id: owner, id, known: v3! })).toEqual({ version: v3, unchanged: true });
  });

  it("answers not found for another owner's session, with or without a version", async () => {
    const owner = randomUUID();
    const id = await manualSession(owner, 'GM: Roll for initiative.');
    const v = versionOf(await read({ owner_id: owner, id }));
    expect(await refusal(read({ owner_id: randomUUID(), id }))).toBe('not_found');
    expect(await refusal(read({ owner_id: randomUUID(), id, known: v! }))).toBe('not_found');
    expect(await refusal(read({ owner_id: owner, id: 'not-a-uuid', known: v! }))).toBe('not_found');
    expect((await store.deleteEnded(owner, id)).outcome).toBe('deleted');
    expect(await refusal(read({ owner_id: owner, id, known: v! }))).toBe('not_found');
  });

  it('gives a session being recorded no version: its lines so far, never unchanged', async () => {
    const owner = randomUUID();
    const id = randomUUID();
    await live.start({
      transcript_id: id,
      owner_id: owner,
      started_at: new Date().toISOString(),
      origin: 'replay',
    });
    const line = (n: number) => ({
      transcript_id: id,
      utterance_id: `u-${n}`,
      text: `Line ${n}`,
      speaker_tag: 1,
      start_seconds: n,
      end_seconds: n + 0.5,
      final_index: n,
    });
    await live.append(line(1));
    const first = await read({ owner_id: owner, id });
    expect(first).toMatchObject({ version: null, transcript: { status: 'active' } });
    expect('transcript' in first && first.transcript.content).toContain('Line 1');

    // Even told the row's own version, a recorded session answers with its lines.
    const [row] = await bed.db.query<{ v: string }>(
      `select xmin::text || '.0' as v from "${bed.schema}".transcripts where id = $1`,
      [id],
    );
    await live.append(line(2));
    const second = await read({ owner_id: owner, id, known: row!.v });
    expect('transcript' in second && second.transcript.content).toContain('Line 2');

    // Ended: its stored text has a version from then on.
    await live.end({
      transcript_id: id,
      ended_at: new Date().toISOString(),
      final_count: 2,
      interim_count: 0,
    });
    const ended = await read({ owner_id: owner, id });
    expect(ended).toMatchObject({ transcript: { status: 'ended' } });
    const v = versionOf(ended);
    expect(v).not.toBeNull();
    expect(await read({ owner_id: owner, id, known: v! })).toEqual({ version: v, unchanged: true });
  });
});

describe('svc.transcript.list-page-if-changed', () => {
  type ListAnswer = Awaited<ReturnType<ReturnType<typeof listPageIfChanged>>>;
  /** The page of a full answer (fails the test on `unchanged`). */
  function pageOf(answer: ListAnswer) {
    if (!('page' in answer)) throw new Error('expected a page, got unchanged');
    return answer.page;
  }

  it('answers unchanged while the page is as held, and the new page after a write on it', async () => {
    const list = listPageIfChanged(store);
    const owner = randomUUID();
    // Four sessions, newest last; a page of 2 holds the two newest.
    const ids: string[] = [];
    for (const day of ['01', '02', '03', '04']) {
      ids.push(await manualSession(owner, `GM: Day ${day}.`, `2024-05-${day}T18:00:00.000Z`));
    }
    const [oldest, , third, newest] = ids as [string, string, string, string];
    const first = await list({ owner_id: owner, limit: 2 });
    const v1 = first.version;
    expect(v1).toMatch(/^[0-9a-f]{32}$/);
    // The same page as list-page, cursor and all.
    expect(pageOf(first)).toEqual(await listPage(store)({ owner_id: owner, limit: 2 }));
    expect(pageOf(first).items.map((i) => i.id)).toEqual([newest, third]);
    expect(await list({ owner_id: owner, limit: 2, known: v1 })).toEqual({ version: v1, unchanged: true });

    // A write to a session beyond the page (and beyond the row that tells a next page follows).
    await store.rename(owner, oldest, 'Far back');
    expect(await list({ owner_id: owner, limit: 2, known: v1 })).toEqual({ version: v1, unchanged: true });

    // A rename on the page.
    await store.rename(owner, newest, 'The dragon');
    const renamed = await list({ owner_id: owner, limit: 2, known: v1 });
    expect(renamed.version).not.toBe(v1);
    expect(pageOf(renamed).items[0]).toMatchObject({ id: newest, name: 'The dragon' });

    // A write straight in the database (as the summary service's, or by hand).
    await bed.db.query(
      `update "${bed.schema}".transcripts set summary = 'They met a dragon.' where id = $1`,
      [third],
    );
    const summarised = await list({ owner_id: owner, limit: 2, known: renamed.version });
    expect(pageOf(summarised).items[1]).toMatchObject({ id: third, summary: 'They met a dragon.' });

    // A newer session joins the page; a deleted one leaves it.
    const joined = await manualSession(owner, 'GM: Day 5.', '2024-05-05T18:00:00.000Z');
    const withNew = await list({ owner_id: owner, limit: 2, known: summarised.version });
    expect(pageOf(withNew).items.map((i) => i.id)).toEqual([joined, newest]);
    expect((await store.deleteEnded(owner, joined)).outcome).toBe('deleted');
    const afterDelete = await list({ owner_id: owner, limit: 2, known: withNew.version });
    expect(pageOf(afterDelete).items.map((i) => i.id)).toEqual([newest, third]);
    // Back to the same rows at the same versions: the same version as before the join.
    expect(afterDelete.version).toBe(summarised.version);

    // The last page: whether a next page follows is part of the version.
    const tail = await list({ owner_id: owner, limit: 4 });
    expect(pageOf(tail).next).toBeNull();
    await manualSession(owner, 'GM: Day 0.', '2024-04-30T18:00:00.000Z');
    const longer = await list({ owner_id: owner, limit: 4, known: tail.version });
    expect(pageOf(longer).next).not.toBeNull();
  });

  it("never answers unchanged with another owner's version, and checks a request as list-page does", async () => {
    const list = listPageIfChanged(store);
    const owner = randomUUID();
    await manualSession(owner, 'GM: Roll for initiative.');
    const mine = await list({ owner_id: owner });
    const theirs = await list({ owner_id: randomUUID(), known: mine.version });
    expect(pageOf(theirs)).toEqual({ items: [], next: null });
    expect(theirs.version).not.toBe(mine.version);
    expect(await refusal(list({ owner_id: owner, search: 'x'.repeat(201), known: mine.version }))).toBe(
      'bad_request',
    );
    expect(await refusal(list({ owner_id: owner, ungrouped: true, group_id: randomUUID() }))).toBe(
      'bad_request',
    );
  });
});
