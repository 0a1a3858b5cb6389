import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { groupMembersRpc } from '@chronicler/contracts';
import { serve, ServiceError } from '@chronicler/kit';
import { openServiceTestbed, type ServiceTestbed } from '@chronicler/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupStore } from '../db/store.ts';
import { createGroup } from './create-group.ts';
import { setGeneratedSummary } from './set-generated-summary.ts';
import { restoreSummary, summaryVersions } from './summary-versions.ts';
import { updateGroup } from './update-group.ts';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

let bed: ServiceTestbed;
let store: GroupStore;

beforeAll(async () => {
  bed = await openServiceTestbed({ schema: 'group', migrationsDir });
  store = new GroupStore(bed.db, bed.schema);
  serve(bed.bus, groupMembersRpc, () => ({}));
});
afterAll(async () => {
  await bed?.close();
});

describe('campaign summary versions', () => {
  it('keeps each replaced text, hand-written or generated, in the order it was replaced', async () => {
    const owner = randomUUID();
    const { id } = await createGroup(store)({ owner_id: owner, name: 'Barovia' });
    const edit = (summary: string) => updateGroup(store, bed.bus)({ owner_id: owner, id, summary });
    const generate = (summary: string) =>
      setGeneratedSummary(store, bed.bus)({ owner_id: owner, id, summary, llm_summary: summary });
    const list = () => summaryVersions(store)({ owner_id: owner, id });

    await generate('The first generated summary.');
    expect(await list()).toMatchObject({
      versions: [],
      current_source: 'generated',
      replaced_on_change: true,
    });
    await edit('My own words.');
    expect((await list()).current_source).toBe('hand');
    await generate('The second generated summary.');
    // A rename alone replaces no summary.
    await updateGroup(store, bed.bus)({ owner_id: owner, id, name: 'Barovia, again' });
    const { versions, total } = await list();
    expect(total).toBe(2);
    expect(versions.map((v) => [v.summary, v.source, v.replaced_by])).toEqual([
      ['My own words.', 'hand', 'generation'],
      ['The first generated summary.', 'generated', 'edit'],
    ]);
    expect(versions[0]!.generated_at).not.toBeNull();

    // Restoring brings the text back and keeps the one it replaces.
    const restored = await restoreSummary(
      store,
      bed.bus,
    )({ owner_id: owner, id, version_id: versions[0]!.id });
    expect(restored.summary).toBe('My own words.');
    const after = await list();
    expect(after.current_source).toBe('hand');
    expect(after.versions[0]).toMatchObject({
      summary: 'The second generated summary.',
      source: 'generated',
      replaced_by: 'restore',
    });
  });

  it('restores a text written by hand from the start as one the automatic check leaves alone', async () => {
    const owner = randomUUID();
    const { id } = await createGroup(store)({ owner_id: owner, name: 'Saltmarsh' });
    await updateGroup(store, bed.bus)({ owner_id: owner, id, summary: 'Written before any generation.' });
    expect((await summaryVersions(store)({ owner_id: owner, id })).replaced_on_change).toBe(false);
    await setGeneratedSummary(
      store,
      bed.bus,
    )({ owner_id: owner, id, summary: 'Generated.', llm_summary: 'Generated.' });
    const [mine] = (await summaryVersions(store)({ owner_id: owner, id })).versions;
    const restored = await restoreSummary(store, bed.bus)({ owner_id: owner, id, version_id: mine!.id });
    expect(restored).toMatchObject({ summary: 'Written before any generation.', summary_generated_at: null });
    expect((await summaryVersions(store)({ owner_id: owner, id })).replaced_on_change).toBe(false);
  });

  it("answers not found for another owner's group or version, and changes nothing", async () => {
    const owner = randomUUID();
    const { id } = await createGroup(store)({ owner_id: owner, name: 'Phandalin' });
    await updateGroup(store, bed.bus)({ owner_id: owner, id, summary: 'One.' });
    await updateGroup(store, bed.bus)({ owner_id: owner, id, summary: 'Two.' });
    const [one] = (await summaryVersions(store)({ owner_id: owner, id })).versions;
    const other = await createGroup(store)({ owner_id: owner, name: 'Elsewhere' });
    const refused = async (p: Promise<unknown>) => {
      const err = await p.catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServiceError);
      return (err as ServiceError).code;
    };
    const stranger = randomUUID();
    expect(await refused(summaryVersions(store)({ owner_id: stranger, id }))).toBe('not_found');
    expect(
      await refused(restoreSummary(store, bed.bus)({ owner_id: stranger, id, version_id: one!.id })),
    ).toBe('not_found');
    // A version of one group cannot be restored into another.
    expect(
      await refused(restoreSummary(store, bed.bus)({ owner_id: owner, id: other.id, version_id: one!.id })),
    ).toBe('not_found');
    expect((await store.get(owner, id))!.summary).toBe('Two.');
    expect((await store.get(owner, other.id))!.summary).toBe('');
  });
});
