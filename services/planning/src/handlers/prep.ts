import {
  getTranscriptRpc,
  PREP_ITEMS_MAX,
  PREP_TEXT_MAX,
  type GroupPrep,
  type PrepItem,
} from '@chronicler/contracts';
import { call, ServiceError, type Bus } from '@chronicler/kit';
import type { PrepStore } from '../db/prep-store.ts';
import { ownGroup } from './group-of.ts';

interface Owned {
  owner_id: string;
  group_id: string;
}

const itemNotFound = (): ServiceError => new ServiceError('not_found', 'Prep item not found');

/** An item's text as stored: trimmed, neither empty nor over PREP_TEXT_MAX. */
function prepText(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (!t) throw new ServiceError('bad_request', 'A prep item needs a text');
  if (t.length > PREP_TEXT_MAX)
    throw new ServiceError('bad_request', `A prep item is at most ${PREP_TEXT_MAX} characters`);
  return t;
}

/**
 * The planning AI's checklist action, applied through the same store as the game master's
 * items (so they tick live alike): each text trimmed and cut to PREP_TEXT_MAX, those already in
 * the next session's plan (same words, any case) left out, and no more than the plan holds.
 * The group is the owner's (the caller checked it). Returns the items added, in order.
 */
export async function addPrepItems(
  store: PrepStore,
  ownerId: string,
  groupId: string,
  texts: readonly string[],
): Promise<PrepItem[]> {
  const existing = await store.list(ownerId, groupId);
  const key = (t: string) => t.toLowerCase();
  const seen = new Set(existing.filter((i) => i.closed_in === null).map((i) => key(i.text)));
  let room = PREP_ITEMS_MAX - existing.length;
  const added: PrepItem[] = [];
  for (const raw of texts) {
    let text = raw.replace(/\s+/g, ' ').trim();
    if (text.length > PREP_TEXT_MAX) text = `${text.slice(0, PREP_TEXT_MAX - 1).trimEnd()}…`;
    if (!text || seen.has(key(text)) || room <= 0) continue;
    seen.add(key(text));
    room--;
    added.push(await store.create(ownerId, groupId, text));
  }
  return added;
}

/** The prep checklist of one of the owner's groups; another user's group is not found. */
export function prepHandlers(store: PrepStore, bus: Bus) {
  const list = async (req: Owned): Promise<GroupPrep> => {
    const group = await ownGroup(bus, req.owner_id, req.group_id);
    return { group_id: group.id, items: await store.list(req.owner_id, group.id) };
  };
  return {
    list,

    async create(req: Owned & { text: string }): Promise<PrepItem> {
      const text = prepText(req.text);
      const group = await ownGroup(bus, req.owner_id, req.group_id);
      if ((await store.count(req.owner_id, group.id)) >= PREP_ITEMS_MAX)
        throw new ServiceError('bad_request', `A campaign's prep holds at most ${PREP_ITEMS_MAX} items`);
      return store.create(req.owner_id, group.id, text);
    },

    async update(req: Owned & { item_id: string; text?: string; done?: boolean }): Promise<PrepItem> {
      const text = req.text === undefined ? undefined : prepText(req.text);
      const group = await ownGroup(bus, req.owner_id, req.group_id);
      const item = await store.update(req.owner_id, group.id, req.item_id, {
        ...(text !== undefined ? { text } : {}),
        ...(req.done !== undefined ? { done: req.done } : {}),
      });
      if (!item) throw itemNotFound();
      return item;
    },

    async delete(req: Owned & { item_id: string }): Promise<{ ok: true }> {
      const group = await ownGroup(bus, req.owner_id, req.group_id);
      if (!(await store.delete(req.owner_id, group.id, req.item_id))) throw itemNotFound();
      return { ok: true };
    },

    /** After a session of the group: what came up leaves the plan, the rest is carried into the next one. */
    async carry(req: Owned & { transcript_id: string }): Promise<GroupPrep> {
      const group = await ownGroup(bus, req.owner_id, req.group_id);
      let session;
      try {
        session = await call(bus, getTranscriptRpc, { owner_id: req.owner_id, id: req.transcript_id });
      } catch (err) {
        if (ServiceError.is(err) && err.code === 'not_found')
          throw new ServiceError('not_found', 'Transcript not found');
        throw err;
      }
      if (session.group_id !== group.id)
        throw new ServiceError('bad_request', 'The session is not one of this campaign');
      if (session.status === 'active')
        throw new ServiceError(
          'conflict',
          'The session is still live: carry its plan forward once it has ended',
        );
      await store.carry(req.owner_id, group.id, session.id);
      return list(req);
    },
  };
}
