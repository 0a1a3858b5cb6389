import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { getTranscriptRpc, listTranscriptsPageRpc, type Transcript } from '@chronicler/contracts';
import { serve, ServiceError } from '@chronicler/kit';
import { openServiceTestbed, type ServiceTestbed } from '@chronicler/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CharacterStore } from '../db/characters-store.ts';
import { GroupStore } from '../db/store.ts';
import { getCharacters, putCharacters } from './characters.ts';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

const alice = randomUUID();
const bob = randomUUID();
let bed: ServiceTestbed;
let groups: GroupStore;
let store: CharacterStore;
/** What the transcript service would answer: one session of the group, with its text. */
const session = {
  id: randomUUID(),
  session_timestamp: '2018-01-25T00:00:00.000Z',
  content: [
    '[00:00:01] MATT: Fjord, what do you do?',
    '[00:00:05] TRAVIS: I draw my falchion.',
    '[00:00:09] MATT: All right. Fjord, the creature lunges at you.',
    '[00:00:12] TRAVIS: I duck.',
    "[00:00:15] LAURA: I'm playing Jester, the tiefling cleric.",
  ].join('\n'),
};

beforeAll(async () => {
  bed = await openServiceTestbed({ schema: 'group', migrationsDir });
  groups = new GroupStore(bed.db, bed.schema);
  store = new CharacterStore(bed.db, bed.schema);
  serve(
    bed.bus,
    listTranscriptsPageRpc,
    () =>
      ({
        items: [{ id: session.id, session_timestamp: session.session_timestamp }],
        next: null,
      }) as never,
  );
  serve(bed.bus, getTranscriptRpc, () => ({ content: session.content }) as Transcript);
});
afterAll(async () => {
  await bed?.close();
});

const get = (owner: string, id: string, infer?: boolean) =>
  getCharacters(store, bed.bus)({ owner_id: owner, id, infer });
const put = (owner: string, id: string, links: { speaker: string; character: string }[]) =>
  putCharacters(store, bed.bus)({ owner_id: owner, id, links });

async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof ServiceError)) throw new Error(`expected a ServiceError, got ${String(err)}`);
  return { code: err.code, message: err.message };
}

describe('group characters (who is who)', () => {
  it("suggests links from the group's sessions until the user saves a map, then keeps theirs", async () => {
    const g = await groups.create(alice, 'Mighty Nein');
    const first = await get(alice, g.id);
    expect(first.links).toEqual([]);
    expect(first.inferred.map((l) => [l.speaker, l.character])).toEqual(
      expect.arrayContaining([
        ['LAURA', 'Jester'],
        ['TRAVIS', 'Fjord'],
      ]),
    );
    const saved = await put(alice, g.id, [{ speaker: ' LAURA ', character: 'Jester Lavorre' }]);
    expect(saved.links).toEqual([{ speaker: 'LAURA', character: 'Jester Lavorre' }]);
    // The user's speaker is no longer suggested; the others still are.
    expect(saved.inferred.map((l) => l.speaker)).toEqual(['TRAVIS']);
    expect((await get(alice, g.id, false)).links).toEqual(saved.links);
    expect((await get(alice, g.id, false)).inferred).toEqual([]);
    // Saving again replaces the map whole.
    expect((await put(alice, g.id, [])).links).toEqual([]);
  });

  it("answers not_found for another owner's group and refuses bad links without storing them", async () => {
    const g = await groups.create(bob, 'Vox Machina');
    await put(bob, g.id, [{ speaker: 'TRAVIS', character: 'Grog' }]);
    expect(await refusal(get(alice, g.id))).toEqual({ code: 'not_found', message: 'Group not found' });
    expect(await refusal(put(alice, g.id, [{ speaker: 'X', character: 'Y' }]))).toMatchObject({
      code: 'not_found',
    });
    expect(await refusal(get(bob, 'not-a-uuid'))).toMatchObject({ code: 'not_found' });
    expect(
      await refusal(
        put(bob, g.id, [
          { speaker: 'TRAVIS', character: 'Grog' },
          { speaker: 'travis', character: 'Pike' },
        ]),
      ),
    ).toEqual({ code: 'bad_request', message: 'The speaker travis is listed twice.' });
    expect(await refusal(put(bob, g.id, [{ speaker: '  ', character: 'Grog' }]))).toMatchObject({
      code: 'bad_request',
    });
    expect((await get(bob, g.id, false)).links).toEqual([{ speaker: 'TRAVIS', character: 'Grog' }]);
  });
});
