import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  groupMembersRpc,
  groupNamesRpc,
  KEYTERMS_MAX,
  KEYTERMS_TOKEN_BUDGET,
  keytermTokens,
  VOCABULARY_MAX_TERMS,
  type RpcRequest,
} from '@chronicler/contracts';
import { MemoryCoordination, serve, ServiceError } from '@chronicler/kit';
import { openServiceTestbed, type ServiceTestbed } from '@chronicler/kit/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GroupStore } from '../db/store.ts';
import { createGroup } from './create-group.ts';
import { capKeyterms, groupKeyterms } from './keyterms.ts';
import { getVocabulary, putVocabulary } from './vocabulary.ts';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

let bed: ServiceTestbed;
let store: GroupStore;
let coord: MemoryCoordination;
/** What the transcript service would answer: session ids and learned names by group id. */
const members: Record<string, string[]> = {};
const names: Record<string, string[]> = {};
const namesAsked: RpcRequest<typeof groupNamesRpc>[] = [];

beforeAll(async () => {
  bed = await openServiceTestbed({ schema: 'group', migrationsDir });
  store = new GroupStore(bed.db, bed.schema);
  serve(bed.bus, groupMembersRpc, (req) =>
    Object.fromEntries((req.group_ids ?? []).filter((id) => members[id]).map((id) => [id, members[id]!])),
  );
  serve(bed.bus, groupNamesRpc, (req) => {
    namesAsked.push(req);
    return { names: names[req.group_id] ?? [] };
  });
});
beforeEach(() => {
  coord = new MemoryCoordination();
});
afterAll(async () => {
  await coord?.close();
  await bed?.close();
});

const get = (owner: string, id: string) =>
  getVocabulary(store, bed.bus, coord.cache)({ owner_id: owner, id });
const put = (owner: string, id: string, terms: string[]) =>
  putVocabulary(store, bed.bus, coord.cache)({ owner_id: owner, id, terms });
const keyterms = (owner: string, id: string) =>
  groupKeyterms(store, bed.bus, coord.cache)({ owner_id: owner, group_id: id });

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ServiceError);
  const { code, message } = err as ServiceError;
  return { code, message };
}

async function newGroup(owner = randomUUID()) {
  const group = await createGroup(store)({ owner_id: owner, name: 'Tal’Dorei' });
  return { owner, id: group.id };
}

describe('svc.group.put-vocabulary and get-vocabulary', () => {
  it('stores the terms trimmed, in order, without repeats that differ only in case', async () => {
    const { owner, id } = await newGroup();
    const saved = await put(owner, id, [
      '  Vex’ahlia ',
      'Grog  Strongjaw',
      'grog strongjaw',
      'Whitestone',
      'VEX’AHLIA',
    ]);
    expect(saved.terms).toEqual(['Vex’ahlia', 'Grog Strongjaw', 'Whitestone']);
    expect((await get(owner, id)).terms).toEqual(['Vex’ahlia', 'Grog Strongjaw', 'Whitestone']);
    expect((await put(owner, id, [])).terms).toEqual([]);
    expect((await get(owner, id)).terms).toEqual([]);
  });

  it('refuses blank, over-long and too many terms with a message, and keeps the stored list', async () => {
    const { owner, id } = await newGroup();
    await put(owner, id, ['Pike']);
    expect(await refusal(put(owner, id, ['Grog', '   ']))).toEqual({
      code: 'bad_request',
      message: 'Vocabulary terms cannot be empty',
    });
    expect(await refusal(put(owner, id, ['x'.repeat(51)]))).toEqual({
      code: 'bad_request',
      message: `Vocabulary term '${'x'.repeat(20)}...' cannot exceed 50 characters`,
    });
    expect(await refusal(put(owner, id, ['Bell\u0007']))).toMatchObject({ code: 'bad_request' });
    const many = Array.from({ length: VOCABULARY_MAX_TERMS + 1 }, (_, i) => `Name ${i}`);
    expect(await refusal(put(owner, id, many))).toEqual({
      code: 'bad_request',
      message: 'Vocabulary cannot have more than 200 terms',
    });
    // Exactly at the limits is fine: 50 characters after trimming, 200 distinct terms (repeats not counted).
    expect((await put(owner, id, [` ${'y'.repeat(50)} `])).terms).toEqual(['y'.repeat(50)]);
    const atLimit = [...many.slice(0, VOCABULARY_MAX_TERMS), 'NAME 0'];
    expect((await put(owner, id, atLimit)).terms).toHaveLength(VOCABULARY_MAX_TERMS);
    await put(owner, id, ['Pike']);
    await refusal(put(owner, id, ['']));
    expect((await get(owner, id)).terms).toEqual(['Pike']);
  });

  it("answers not found for another owner's group, or no group, and leaves it unchanged", async () => {
    const { owner, id } = await newGroup();
    await put(owner, id, ['Scanlan']);
    const stranger = randomUUID();
    for (const attempt of [get(stranger, id), put(stranger, id, ['Mine']), keyterms(stranger, id)]) {
      expect(await refusal(attempt)).toEqual({ code: 'not_found', message: 'Group not found' });
    }
    // Not found wins over bad terms, so the refusal says nothing about another user's group.
    expect(await refusal(put(stranger, id, ['']))).toMatchObject({ code: 'not_found' });
    expect(await refusal(get(owner, 'not-a-uuid'))).toMatchObject({ code: 'not_found' });
    expect((await get(owner, id)).terms).toEqual(['Scanlan']);
  });

  it('shows the learned names that are not already among the terms', async () => {
    const { owner, id } = await newGroup();
    members[id] = [randomUUID()];
    names[id] = ['Grog', 'Kraghammer', 'Pike', "Vex'ahlia"];
    await put(owner, id, ['pike', 'Keyleth', 'Vex’ahlia']);
    expect(await get(owner, id)).toEqual({
      terms: ['pike', 'Keyleth', 'Vex’ahlia'],
      learned: ['Grog', 'Kraghammer'],
    });
  });
});

describe('svc.group.keyterms', () => {
  it("puts the user's terms first, then the learned names, and keeps the two lists apart", async () => {
    const { owner, id } = await newGroup();
    members[id] = [randomUUID()];
    names[id] = ['Grog', 'Vox Machina', 'Percy'];
    await put(owner, id, ['Percival de Rolo', 'grog']);
    expect(await keyterms(owner, id)).toEqual({
      keyterms: ['Percival de Rolo', 'grog', 'Vox Machina', 'Percy'],
      user_terms: ['Percival de Rolo', 'grog'],
      learned_terms: ['Vox Machina', 'Percy'],
    });
  });

  it('asks the transcript service with the campaign summary and reuses its answer until the sessions change', async () => {
    const { owner, id } = await newGroup();
    await store.update(owner, id, { summary: 'Vox Machina rode to Whitestone.' });
    members[id] = [randomUUID()];
    names[id] = ['Whitestone'];
    const before = namesAsked.length;
    expect((await keyterms(owner, id)).learned_terms).toEqual(['Whitestone']);
    expect(namesAsked.at(-1)).toEqual({
      owner_id: owner,
      group_id: id,
      campaign_summary: 'Vox Machina rode to Whitestone.',
    });
    names[id] = ['Whitestone', 'Ripley'];
    expect((await keyterms(owner, id)).learned_terms).toEqual(['Whitestone']);
    expect(namesAsked.length).toBe(before + 1);
    // A new session in the group: the names are read again.
    members[id] = [...members[id]!, randomUUID()];
    expect((await keyterms(owner, id)).learned_terms).toEqual(['Whitestone', 'Ripley']);
    expect(namesAsked.length).toBe(before + 2);
  });

  it('does not ask for learned names of a group with no sessions and no summary', async () => {
    const { owner, id } = await newGroup();
    const before = namesAsked.length;
    await put(owner, id, ['Kima']);
    expect(await keyterms(owner, id)).toEqual({
      keyterms: ['Kima'],
      user_terms: ['Kima'],
      learned_terms: [],
    });
    expect(namesAsked.length).toBe(before);
  });

  it('sends at most 100 terms and stays within the token budget', async () => {
    const { owner, id } = await newGroup();
    members[id] = [randomUUID()];
    names[id] = Array.from({ length: 100 }, (_, i) => `Npc${i}`);
    const own = Array.from({ length: 150 }, (_, i) => `Place${i}`);
    await put(owner, id, own);
    const answer = await keyterms(owner, id);
    expect(answer.user_terms).toHaveLength(150);
    expect(answer.learned_terms).toHaveLength(100);
    expect(answer.keyterms.length).toBeLessThanOrEqual(KEYTERMS_MAX);
    expect(answer.keyterms.reduce((sum, t) => sum + keytermTokens(t), 0)).toBeLessThanOrEqual(
      KEYTERMS_TOKEN_BUDGET,
    );
    // The user's terms come first and are the last to be cut.
    expect(answer.keyterms).toEqual(own.slice(0, answer.keyterms.length));
  });

  it('skips a term that does not fit the budget and still sends shorter ones after it', () => {
    const long = 'L'.repeat(48);
    const terms = [...Array.from({ length: 20 }, () => long), 'Pike'];
    const sent = capKeyterms(terms);
    expect(sent.filter((t) => t === long)).toHaveLength(
      Math.floor(KEYTERMS_TOKEN_BUDGET / keytermTokens(long)),
    );
    expect(sent.at(-1)).toBe('Pike');
    expect(capKeyterms(Array.from({ length: 150 }, (_, i) => `T${i}`))).toHaveLength(KEYTERMS_MAX);
  });
});
