import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  GROUP_EVENTS_STREAM,
  GROUP_NAME_MAX,
  groupDeletedEvent,
  groupEventsStream,
  groupMembersRpc,
  type Group,
} from '@chronicler/contracts';
import { createBus, createLogger, EventOutbox, serve, ServiceError } from '@chronicler/kit';
import { openServiceTestbed, type ServiceTestbed } from '@chronicler/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupStore } from '../db/store.ts';
import { createGroup } from './create-group.ts';
import { deleteGroup } from './delete-group.ts';
import { listGroups } from './list-groups.ts';
import { updateGroup } from './update-group.ts';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

let bed: ServiceTestbed;
const quiet = createLogger(null, { level: 'silent' });
const outboxOn = (bus: ServiceTestbed['bus']) =>
  new EventOutbox({ db: bed.db, schema: bed.schema, bus, logger: quiet });
let store: GroupStore;
/** What the transcript service (which owns membership) answers: session ids by group id. */
const members: Record<string, string[]> = {};

beforeAll(async () => {
  bed = await openServiceTestbed({ schema: 'group', migrationsDir });
  store = new GroupStore(bed.db, bed.schema);
  await bed.bus.ensureStream(groupEventsStream);
  serve(bed.bus, groupMembersRpc, (req) =>
    Object.fromEntries((req.group_ids ?? []).filter((id) => members[id]).map((id) => [id, members[id]!])),
  );
});
afterAll(async () => {
  await bed?.close();
});

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ServiceError);
  const { code, message } = err as ServiceError;
  return { code, message };
}

describe('svc.group.create and update', () => {
  it('creates a group with a trimmed name and no sessions', async () => {
    const owner = randomUUID();
    const group = await createGroup(store)({ owner_id: owner, name: '  Curse of Strahd ' });
    expect(group).toMatchObject({
      name: 'Curse of Strahd',
      group_id: group.id,
      session_ids: [],
      summary: '',
    });
    expect((await store.get(owner, group.id))?.name).toBe('Curse of Strahd');
  });

  it('refuses a blank or over-long name', async () => {
    const owner = randomUUID();
    expect(await refusal(createGroup(store)({ owner_id: owner, name: '  ' }))).toEqual({
      code: 'bad_request',
      message: 'Group name cannot be empty.',
    });
    expect(await refusal(createGroup(store)({ owner_id: owner }))).toMatchObject({ code: 'bad_request' });
    const tooLong = await refusal(
      createGroup(store)({ owner_id: owner, name: 'g'.repeat(GROUP_NAME_MAX + 1) }),
    );
    expect(tooLong.code).toBe('bad_request');
    expect(tooLong.message).toContain(String(GROUP_NAME_MAX));
    expect((await listGroups(store, bed.bus)({ owner_id: owner })).items).toEqual([]);
  });

  it('renames a group, keeps what was not sent, and reports its sessions', async () => {
    const owner = randomUUID();
    const group = await createGroup(store)({ owner_id: owner, name: 'Old' });
    const update = updateGroup(store, bed.bus);
    await update({ owner_id: owner, id: group.id, summary: 'The party met in a tavern.' });
    members[group.id] = ['s-1', 's-2'];
    const renamed = await update({ owner_id: owner, id: group.id, name: ' New ' });
    expect(renamed).toMatchObject({
      name: 'New',
      summary: 'The party met in a tavern.',
      session_ids: ['s-1', 's-2'],
    });
    expect(await refusal(update({ owner_id: owner, id: group.id, name: '' }))).toEqual({
      code: 'bad_request',
      message: 'Group name cannot be empty.',
    });
    expect((await store.get(owner, group.id))?.name).toBe('New');
  });

  it("answers not found when renaming another owner's group", async () => {
    const group = await createGroup(store)({ owner_id: randomUUID(), name: 'Theirs' });
    expect(
      await refusal(updateGroup(store, bed.bus)({ owner_id: randomUUID(), id: group.id, name: 'Mine' })),
    ).toEqual({ code: 'not_found', message: 'Group not found' });
  });
});

describe('svc.group.list', () => {
  it('pages through every group once, in list order, with their sessions, and ends with no next', async () => {
    const owner = randomUUID();
    const created: Group[] = [];
    for (const name of ['A', 'B', 'C', 'D', 'E'])
      created.push(await createGroup(store)({ owner_id: owner, name }));
    members[created[0]!.id] = ['s-a'];
    const list = listGroups(store, bed.bus);
    const pages = [];
    let after: string | undefined;
    do {
      const page = await list({ owner_id: owner, limit: 2, ...(after ? { after } : {}) });
      pages.push(page.items.map((g) => g.name));
      after = page.next ?? undefined;
    } while (after);
    // Groups created within one clock tick tie on created_at and are ordered by id, so the
    // pages are compared with the one-page listing rather than with the creation order.
    const whole = (await list({ owner_id: owner, limit: 10 })).items;
    expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual(whole.map((g) => g.name));
    expect([...pages.flat()].sort()).toEqual(['A', 'B', 'C', 'D', 'E']);
    expect(whole.find((g) => g.id === created[0]!.id)?.session_ids).toEqual(['s-a']);
    expect(whole.find((g) => g.id === created[1]!.id)?.session_ids).toEqual([]);
  });

  it("shows no other owner's groups and refuses a forged cursor", async () => {
    const owner = randomUUID();
    await createGroup(store)({ owner_id: randomUUID(), name: 'Not yours' });
    expect(await listGroups(store, bed.bus)({ owner_id: owner })).toEqual({ items: [], next: null });
    const forged = Buffer.from(JSON.stringify(['2024-01-01', 'x'])).toString('base64url');
    for (const after of [forged, '%%%']) {
      expect(await refusal(listGroups(store, bed.bus)({ owner_id: owner, after }))).toEqual({
        code: 'bad_request',
        message: 'Invalid list cursor',
      });
    }
  });
});

describe('svc.group.delete', () => {
  it('removes the group and announces it once on evt.group.deleted', async () => {
    const owner = randomUUID();
    const group = await createGroup(store)({ owner_id: owner, name: 'Doomed' });
    const announced: unknown[] = [];
    let arrived: () => void = () => undefined;
    const seen = new Promise<void>((resolve) => (arrived = resolve));
    const consumer = await bed.bus.consume(
      { stream: GROUP_EVENTS_STREAM, durable: `test-${owner}`, filterSubject: groupDeletedEvent.subject },
      async (payload) => {
        if ((payload as { owner_id: string }).owner_id !== owner) return;
        announced.push(payload);
        arrived();
      },
    );
    try {
      expect(await deleteGroup(store, outboxOn(bed.bus))({ owner_id: owner, id: group.id })).toEqual({
        ok: true,
      });
      await seen;
      expect(announced).toEqual([{ group_id: group.id, owner_id: owner }]);
      expect(await store.get(owner, group.id)).toBeNull();
      expect(await refusal(deleteGroup(store, outboxOn(bed.bus))({ owner_id: owner, id: group.id }))).toEqual(
        {
          code: 'not_found',
          message: 'Group not found',
        },
      );
    } finally {
      await consumer.stop();
    }
  });

  it("answers not found for another owner's group and leaves it in place", async () => {
    const owner = randomUUID();
    const group = await createGroup(store)({ owner_id: owner, name: 'Safe' });
    expect(
      await refusal(deleteGroup(store, outboxOn(bed.bus))({ owner_id: randomUUID(), id: group.id })),
    ).toMatchObject({
      code: 'not_found',
    });
    expect(await store.get(owner, group.id)).not.toBeNull();
  });

  it('deletes the group even when the bus fails at that moment, and announces it once the bus answers', async () => {
    const owner = randomUUID();
    const group = await createGroup(store)({ owner_id: owner, name: 'Survivor' });
    const announced: unknown[] = [];
    const consumer = await bed.bus.consume(
      { stream: GROUP_EVENTS_STREAM, durable: `later-${owner}`, filterSubject: groupDeletedEvent.subject },
      async (payload) => {
        if ((payload as { owner_id: string }).owner_id === owner) announced.push(payload);
      },
    );
    // A bus without the group events stream: every publish fails.
    const bare = await createBus({ prefix: `bare${randomUUID().slice(0, 8)}`, name: 'group-test' });
    try {
      const failing = outboxOn(bare);
      expect(await deleteGroup(store, failing)({ owner_id: owner, id: group.id })).toEqual({ ok: true });
      expect(await failing.drain()).toBe(0);
      expect(await store.get(owner, group.id)).toBeNull();
      // The event waited in the outbox, committed with the delete; the working relay sends it once.
      await outboxOn(bed.bus).drain();
      await waitUntil(() => announced.length > 0);
      expect(announced).toEqual([{ group_id: group.id, owner_id: owner }]);
    } finally {
      await bare.close();
      await consumer.stop();
    }
  });
});

async function waitUntil(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 50));
}
