import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAiEngine, type AiConfig, type AiEngine } from '@chronicler/ai';
import {
  claimSummaryRpc,
  getGroupRpc,
  getTranscriptRpc,
  listTranscriptsPageRpc,
  setGeneratedSummaryRpc,
  setGroupGeneratedSummaryRpc,
  setSummaryStatusRpc,
  transcriptReadyForSummaryEvent,
  type Group,
  type Transcript,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { createLogger, MemoryCoordination, serve, ServiceError, type DurableContext } from '@chronicler/kit';
import { openServiceTestbed, type ServiceTestbed } from '@chronicler/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onReadyForSummary } from '../consumers/ready-for-summary.ts';
import { SummaryStore } from '../db/store.ts';
import { RecapOnce } from '../recap-once.ts';
import {
  AUTOMATIC_OFF,
  checkDue,
  checkGroup,
  generateGroup,
  NO_SESSION_SUMMARIES,
  UP_TO_DATE,
} from './group-summary.ts';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
const logger = createLogger('summary-test', { level: 'silent' });
/** No key and no base URL: createAiEngine builds the offline engine. */
const offlineConfig: AiConfig = {
  OPENAI_CONTEXT_TOKENS: 128_000,
  OPENAI_TIMEOUT_MS: 120_000,
  OPENAI_MAX_RETRIES: 0,
  AI_PRICE_INPUT_PER_MILLION_USD: 0,
  AI_PRICE_OUTPUT_PER_MILLION_USD: 0,
  AI_RATE_LIMIT_PER_MINUTE: 1_000,
  AI_OFFLINE_THREADS: 1,
  AI_OFFLINE_NICE: 0,
};

let bed: ServiceTestbed;
let store: SummaryStore;
let coord: MemoryCoordination;
let engine: AiEngine;
/** What the group service holds: groups by `owner/group`. */
const groups = new Map<string, Group>();
/** Group summaries the group service was asked to store, by group id. */
const storedGroupSummaries = new Map<string, string[]>();
/** What the transcript service holds: sessions by `owner/id`. */
const transcripts = new Map<string, Transcript>();
/** Sessions the transcript service lets the automatic summary claim, as `owner/id`. */
const claimable = new Set<string>();
/** Summary statuses the transcript service was told, by session id, in order. */
const statuses = new Map<string, string[]>();

beforeAll(async () => {
  bed = await openServiceTestbed({ schema: 'summary', migrationsDir });
  store = new SummaryStore(bed.db, bed.schema);
  coord = new MemoryCoordination();
  engine = createAiEngine(offlineConfig, { bus: bed.bus, coord, logger });
  serve(bed.bus, getGroupRpc, (req) => {
    const group = groups.get(`${req.owner_id}/${req.id}`);
    if (!group) throw new ServiceError('not_found', 'Group not found');
    return group;
  });
  serve(bed.bus, setGroupGeneratedSummaryRpc, (req) => {
    const key = `${req.owner_id}/${req.id}`;
    const group = groups.get(key);
    if (!group) throw new ServiceError('not_found', 'Group not found');
    storedGroupSummaries.set(req.id, [...(storedGroupSummaries.get(req.id) ?? []), req.llm_summary]);
    const updated = {
      ...group,
      summary: req.summary,
      llm_summary: req.llm_summary,
      summary_generated_at: new Date().toISOString(),
    };
    groups.set(key, updated);
    return updated;
  });
  serve(bed.bus, listTranscriptsPageRpc, (req) => ({
    items: [...transcripts.entries()]
      .filter(([key, t]) => key.startsWith(`${req.owner_id}/`) && t.group_id === req.group_id)
      .map(([, t]) => listItem(t)),
    next: null,
  }));
  serve(bed.bus, getTranscriptRpc, (req) => {
    const t = transcripts.get(`${req.owner_id}/${req.id}`);
    if (!t) throw new ServiceError('not_found', 'Transcript not found');
    return t;
  });
  serve(bed.bus, claimSummaryRpc, (req) => ({ claimed: claimable.delete(`${req.owner_id}/${req.id}`) }));
  serve(bed.bus, setSummaryStatusRpc, (req) => {
    statuses.set(req.id, [...(statuses.get(req.id) ?? []), req.status]);
    return { ok: true as const };
  });
  serve(bed.bus, setGeneratedSummaryRpc, (req) => {
    const key = `${req.owner_id}/${req.id}`;
    const t = transcripts.get(key);
    if (!t) throw new ServiceError('not_found', 'Transcript not found');
    const updated: Transcript = { ...t, summary: req.summary, summary_status: 'done' };
    transcripts.set(key, updated);
    statuses.set(req.id, [...(statuses.get(req.id) ?? []), 'done']);
    return listItem(updated);
  });
});
afterAll(async () => {
  await coord?.close();
  await bed?.close();
});

function listItem({ content: _content, ...item }: Transcript): TranscriptListItem {
  return { ...item, preview: '' };
}

function group(owner: string, fields: Partial<Group> = {}): Group {
  const id = randomUUID();
  const g: Group = {
    id,
    group_id: id,
    name: 'Curse of Strahd',
    session_ids: [],
    summary: '',
    llm_summary: '',
    summary_generated_at: null,
    ...fields,
  };
  groups.set(`${owner}/${id}`, g);
  return g;
}

function session(owner: string, fields: Partial<Transcript>): Transcript {
  const at = '2024-01-01T19:00:00.000Z';
  const t: Transcript = {
    id: randomUUID(),
    name: 'Session',
    session_timestamp: at,
    created_at: at,
    last_activity: at,
    status: 'ended',
    group_id: '',
    summary: '',
    content: '',
    source: 'manual',
    transcription_status: 'none',
    transcription_error: '',
    audio_seconds: 0,
    summary_status: 'none',
    transcription_retryable: false,
    summary_outdated: false,
    ...fields,
  };
  transcripts.set(`${owner}/${t.id}`, t);
  return t;
}

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ServiceError);
  const { code, message } = err as ServiceError;
  return { code, message };
}

const deps = (automatic = true) => ({ bus: bed.bus, coord, engine, store, automatic, logger });

describe('svc.summary.check-group', () => {
  it('generates and stores a campaign summary when the sessions changed, and not again until they change', async () => {
    const owner = randomUUID();
    const g = group(owner);
    session(owner, {
      group_id: g.id,
      name: 'Death House',
      session_timestamp: '2024-01-01T19:00:00.000Z',
      summary: 'The party escaped the Death House and met Ireena.',
    });
    const check = checkGroup(deps());
    const dueNow = async () => (await checkDue(deps())({ owner_id: owner, id: g.id })).due;

    // The dashboard's look before the check: due, and nothing made by looking.
    expect(await dueNow()).toBe(true);
    expect(storedGroupSummaries.get(g.id)).toBeUndefined();
    const first = await check({ owner_id: owner, id: g.id });
    expect(first).toMatchObject({ group_id: g.id, needs_update: true, message: 'Campaign summary updated.' });
    expect(first.llm_summary).toContain('Death House');
    expect(storedGroupSummaries.get(g.id)).toEqual([first.llm_summary]);
    expect(groups.get(`${owner}/${g.id}`)?.llm_summary).toBe(first.llm_summary);

    expect(await dueNow()).toBe(false);
    const again = await check({ owner_id: owner, id: g.id });
    expect(again).toMatchObject({ needs_update: false, message: UP_TO_DATE, summary: first.summary });
    expect(storedGroupSummaries.get(g.id)).toHaveLength(1);

    session(owner, {
      group_id: g.id,
      name: 'Vallaki',
      session_timestamp: '2024-01-08T19:00:00.000Z',
      summary: 'In Vallaki the party met the Baron.',
    });
    expect(await dueNow()).toBe(true);
    const changed = await check({ owner_id: owner, id: g.id });
    expect(changed.needs_update).toBe(true);
    expect(changed.llm_summary).toContain('Vallaki');
    expect(storedGroupSummaries.get(g.id)).toHaveLength(2);
  });

  it('leaves a hand-written summary, a group without session summaries, and automatic-off alone', async () => {
    const owner = randomUUID();
    const handWritten = group(owner, { summary: 'Written by the DM.' });
    session(owner, { group_id: handWritten.id, summary: 'Something happened.' });
    const empty = group(owner);
    session(owner, { group_id: empty.id, summary: '' });
    const fresh = group(owner);
    session(owner, { group_id: fresh.id, summary: 'A summary exists.' });

    expect(await checkGroup(deps())({ owner_id: owner, id: handWritten.id })).toMatchObject({
      needs_update: false,
      message: UP_TO_DATE,
      summary: 'Written by the DM.',
    });
    expect(await checkGroup(deps())({ owner_id: owner, id: empty.id })).toMatchObject({
      needs_update: false,
      message: UP_TO_DATE,
    });
    expect(await checkGroup(deps(false))({ owner_id: owner, id: fresh.id })).toMatchObject({
      needs_update: false,
      message: AUTOMATIC_OFF,
    });
    for (const g of [handWritten, empty, fresh]) {
      expect(await checkDue(deps(g !== fresh))({ owner_id: owner, id: g.id })).toEqual({ due: false });
      expect(storedGroupSummaries.get(g.id)).toBeUndefined();
    }
  });

  it("answers not found for another owner's group", async () => {
    const g = group(randomUUID());
    expect(await refusal(checkGroup(deps())({ owner_id: randomUUID(), id: g.id }))).toEqual({
      code: 'not_found',
      message: 'Group not found',
    });
  });
});

describe('svc.summary.generate-group', () => {
  it('regenerates on request even when up to date, replacing a hand-written summary', async () => {
    const owner = randomUUID();
    const g = group(owner, { summary: 'Written by the DM.' });
    session(owner, { group_id: g.id, name: 'Argynvostholt', summary: 'The party fought the revenants.' });
    const updated = await generateGroup(deps(false))({ owner_id: owner, id: g.id });
    expect(updated.llm_summary).toContain('Argynvostholt');
    expect(updated.summary).toBe(updated.llm_summary);
    expect(updated.summary_generated_at).not.toBeNull();
    expect(storedGroupSummaries.get(g.id)).toEqual([updated.llm_summary]);
    // What it was made from is remembered: the next check finds it up to date.
    expect((await checkGroup(deps())({ owner_id: owner, id: g.id })).message).toBe(UP_TO_DATE);
  });

  it("refuses a group whose sessions have no summary, and another owner's group, storing nothing", async () => {
    const owner = randomUUID();
    const g = group(owner);
    session(owner, { group_id: g.id, summary: '  ' });
    expect(await refusal(generateGroup(deps())({ owner_id: owner, id: g.id }))).toEqual({
      code: 'bad_request',
      message: NO_SESSION_SUMMARIES,
    });
    expect(await refusal(generateGroup(deps())({ owner_id: randomUUID(), id: g.id }))).toMatchObject({
      code: 'not_found',
    });
    expect(storedGroupSummaries.get(g.id)).toBeUndefined();
    expect(await store.fingerprint(owner, g.id)).toBeNull();
  });
});

describe('evt.transcript.ready-for-summary', () => {
  const delivery = (deliveryCount = 1): DurableContext => ({
    subject: transcriptReadyForSummaryEvent.subject,
    headers: {},
    stream: 'TRANSCRIPT_EVENTS',
    seq: 1,
    deliveryCount,
    working: () => undefined,
  });
  const consume = () =>
    onReadyForSummary({ bus: bed.bus, engine, recaps: new RecapOnce(store, coord), logger }, logger);

  it('summarises a claimed session once and stores it; a redelivery finds nothing to claim', async () => {
    const owner = randomUUID();
    const t = session(owner, {
      name: 'Tser Pool',
      content:
        '[00:00:05] DM: Madam Eva reads the cards for the party.\n[00:01:10] Ireena: We must reach Vallaki.',
    });
    claimable.add(`${owner}/${t.id}`);
    await consume()({ owner_id: owner, transcript_id: t.id }, delivery());
    await consume()({ owner_id: owner, transcript_id: t.id }, delivery(2));
    expect(statuses.get(t.id)).toEqual(['generating', 'done']);
    const stored = transcripts.get(`${owner}/${t.id}`)!;
    expect(stored.summary).not.toBe('');
    expect(stored.summary).toContain('Madam Eva');
  });

  it('puts an empty session back to no summary without asking the engine', async () => {
    const owner = randomUUID();
    const t = session(owner, { content: '   ' });
    claimable.add(`${owner}/${t.id}`);
    await consume()({ owner_id: owner, transcript_id: t.id }, delivery());
    expect(statuses.get(t.id)).toEqual(['none']);
    expect(transcripts.get(`${owner}/${t.id}`)?.summary).toBe('');
  });
});
