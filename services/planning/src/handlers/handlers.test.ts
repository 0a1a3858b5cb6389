import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAiEngine, type AiConfig } from '@chronicler/ai';
import {
  getGroupRpc,
  listTranscriptsPageRpc,
  PLANNING_HISTORY_LIMIT,
  type Group,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { createLogger, MemoryCoordination, serve, ServiceError } from '@chronicler/kit';
import { openServiceTestbed, type ServiceTestbed } from '@chronicler/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrepStore } from '../db/prep-store.ts';
import { PlanningStore } from '../db/store.ts';
import { onGroupDeleted } from './group-deleted.ts';
import { history } from './history.ts';
import { send } from './send.ts';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');
const logger = createLogger('planning-test', { level: 'silent' });
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
let store: PlanningStore;
let prep: PrepStore;
let coord: MemoryCoordination;
/** What the group service answers: groups by `owner/group`. */
const groups = new Map<string, Group>();
/** What the transcript service answers: a group's sessions by group id. */
const sessions = new Map<string, TranscriptListItem[]>();

beforeAll(async () => {
  bed = await openServiceTestbed({ schema: 'planning', migrationsDir });
  store = new PlanningStore(bed.db, bed.schema);
  prep = new PrepStore(bed.db, bed.schema);
  coord = new MemoryCoordination();
  serve(bed.bus, getGroupRpc, (req) => {
    const group = groups.get(`${req.owner_id}/${req.id}`);
    if (!group) throw new ServiceError('not_found', 'Group not found');
    return group;
  });
  serve(bed.bus, listTranscriptsPageRpc, (req) => ({
    items: sessions.get(req.group_id ?? '') ?? [],
    next: null,
  }));
});
afterAll(async () => {
  await coord?.close();
  await bed?.close();
});

function ownGroup(name = 'Curse of Strahd') {
  const owner = randomUUID();
  const id = randomUUID();
  groups.set(`${owner}/${id}`, {
    id,
    group_id: id,
    name,
    session_ids: [],
    summary: '',
    llm_summary: '',
    summary_generated_at: null,
  });
  return { owner, id };
}

function session(name: string, at: string, summary: string): TranscriptListItem {
  return {
    id: randomUUID(),
    name,
    session_timestamp: at,
    created_at: at,
    last_activity: at,
    status: 'ended',
    group_id: '',
    summary,
    preview: '',
    source: 'manual',
    transcription_status: 'none',
    transcription_error: '',
    audio_seconds: 0,
    summary_status: 'done',
  };
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

const at = (i: number) => new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString();

describe('svc.planning.history', () => {
  it('shows the planning chat oldest first, and an empty one for a group without messages', async () => {
    const { owner, id } = ownGroup();
    expect(await history(store, bed.bus)({ owner_id: owner, group_id: id })).toEqual({ messages: [] });
    await store.append(owner, id, [
      { role: 'user', content: 'What next?', timestamp: at(1) },
      { role: 'assistant', content: 'Visit the Abbey.', timestamp: at(2) },
    ]);
    const { messages } = await history(store, bed.bus)({ owner_id: owner, group_id: id });
    expect(messages.map((m) => [m.role, m.content, m.timestamp])).toEqual([
      ['user', 'What next?', at(1)],
      ['assistant', 'Visit the Abbey.', at(2)],
    ]);
  });

  it('shows only the newest messages of a long chat while every message stays stored', async () => {
    const { owner, id } = ownGroup();
    const total = PLANNING_HISTORY_LIMIT + 5;
    await store.append(
      owner,
      id,
      Array.from({ length: total }, (_, i) => ({
        role: i % 2 ? ('assistant' as const) : ('user' as const),
        content: `message ${i}`,
        timestamp: at(i),
      })),
    );
    const { messages } = await history(store, bed.bus)({ owner_id: owner, group_id: id });
    expect(messages).toHaveLength(PLANNING_HISTORY_LIMIT);
    expect(messages[0]!.content).toBe('message 5');
    expect(messages.at(-1)!.content).toBe(`message ${total - 1}`);
    expect(await store.recent(owner, id, total * 2)).toHaveLength(total);
  });

  it("answers not found for another owner's group, even when that group has a chat", async () => {
    const { owner, id } = ownGroup();
    await store.append(owner, id, [{ role: 'user', content: 'private', timestamp: at(1) }]);
    expect(await refusal(history(store, bed.bus)({ owner_id: randomUUID(), group_id: id }))).toEqual({
      code: 'not_found',
      message: 'Group not found',
    });
  });
});

describe('svc.planning.send', () => {
  const engine = () => createAiEngine(offlineConfig, { bus: bed.bus, coord, logger });

  it("stores the user's message and the offline engine's reply, and returns the reply", async () => {
    const { owner, id } = ownGroup();
    sessions.set(id, [
      session('Death House', '2024-01-01T19:00:00.000Z', 'The party must find the missing children of Rose.'),
    ]);
    const reply = await send(
      store,
      prep,
      bed.bus,
      engine(),
      logger,
    )({ owner_id: owner, group_id: id, content: '  What should happen next?  ', editor: null });
    expect(reply.role).toBe('assistant');
    expect(reply.content).toMatch(/^<!-- chronicler:offline -->\n/);
    expect(reply.content).toContain('Your sessions’ summaries list no open threads yet');
    const { messages } = await history(store, bed.bus)({ owner_id: owner, group_id: id });
    expect(messages).toEqual([
      {
        id: expect.any(String),
        role: 'user',
        content: 'What should happen next?',
        timestamp: expect.any(String),
      },
      reply,
    ]);
  });

  it("adds the offline engine's proposed prep items to the group's checklist, once", async () => {
    const { owner, id } = ownGroup();
    sessions.set(id, [
      session(
        'Death House',
        '2024-01-01T19:00:00.000Z',
        '## Open threads\n- Who sent the letter to Ireena\n- The **Amber Temple** key',
      ),
    ]);
    await prep.create(owner, id, 'who sent the letter to ireena');
    const ask = send(store, prep, bed.bus, engine(), logger);
    const reply = await ask({
      owner_id: owner,
      group_id: id,
      content: 'Add prep items for next session',
      editor: null,
    });
    expect(JSON.parse(reply.content)).toEqual({
      actionHint: 'addPrepItems',
      items: ['The Amber Temple key'],
    });
    expect((await prep.list(owner, id)).map((i) => [i.text, i.done])).toEqual([
      ['who sent the letter to ireena', false],
      ['The Amber Temple key', false],
    ]);
    const again = await ask({ owner_id: owner, group_id: id, content: 'Make a checklist', editor: null });
    expect(again.content).toBe(
      'Those prep items are already in the checklist (or it is full): nothing was added.',
    );
    expect(await prep.list(owner, id)).toHaveLength(2);
  });

  it('refuses an empty message or a group not the owner’s, and stores nothing', async () => {
    const { owner, id } = ownGroup();
    const ask = send(store, prep, bed.bus, engine(), logger);
    expect(await refusal(ask({ owner_id: owner, group_id: id, content: '   ', editor: null }))).toEqual({
      code: 'bad_request',
      message: 'Message cannot be empty.',
    });
    expect(
      await refusal(ask({ owner_id: randomUUID(), group_id: id, content: 'Hello', editor: null })),
    ).toEqual({ code: 'not_found', message: 'Group not found' });
    expect(await store.recent(owner, id, 10)).toEqual([]);
  });
});

describe('evt.group.deleted', () => {
  it("deletes that group's planning chat of its owner only, and a redelivery changes nothing", async () => {
    const owner = randomUUID();
    const stranger = randomUUID();
    const groupId = randomUUID();
    const otherGroup = randomUUID();
    const one = [{ role: 'user' as const, content: 'kept?', timestamp: at(1) }];
    await store.append(owner, groupId, one);
    await store.append(owner, otherGroup, one);
    await store.append(stranger, groupId, one);
    const prep = new PrepStore(bed.db, bed.schema);
    const kept = await prep.create(owner, otherGroup, 'The vampire spawn in the crypt');
    await prep.create(owner, groupId, 'The vampire spawn in the crypt');
    const consume = onGroupDeleted(store, prep, logger);
    await consume({ owner_id: owner, group_id: groupId });
    await consume({ owner_id: owner, group_id: groupId });
    expect(await store.recent(owner, groupId, 10)).toEqual([]);
    expect(await store.recent(owner, otherGroup, 10)).toHaveLength(1);
    expect(await store.recent(stranger, groupId, 10)).toHaveLength(1);
    expect(await prep.list(owner, groupId)).toEqual([]);
    expect((await prep.list(owner, otherGroup)).map((i) => i.id)).toEqual([kept.id]);
  });
});
