import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import {
  AUDIO_BLOB_BUCKET,
  AUDIO_RECORDING_GONE,
  audioJobsStream,
  groupExistsRpc,
  SESSION_NAME_MAX,
  TRANSCRIPT_EVENTS_STREAM,
  transcriptEventsStream,
  transcriptReadyForSummaryEvent,
} from '@chronicler/contracts';
import { createLogger, EventOutbox, serve, ServiceError } from '@chronicler/kit';
import { openServiceTestbed, type ServiceTestbed } from '@chronicler/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ShareStore } from '../db/share-store.ts';
import { TranscriptStore } from '../db/store.ts';
import type { SpeechProvider } from '@chronicler/speech';
import { createManual } from './create-manual.ts';
import { deleteTranscript } from './delete-transcript.ts';
import { retryAudio } from './retry-audio.ts';
import { onGroupDeleted } from './group-deleted.ts';
import { listPage } from './list-page.ts';
import { renameTranscript } from './rename-transcript.ts';
import { updateTranscript } from './update-transcript.ts';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

let bed: ServiceTestbed;
let store: TranscriptStore;
let outbox: EventOutbox;
/** Groups the fake group service knows, by owner: the transcript service asks it before grouping. */
const knownGroups = new Map<string, Set<string>>();

beforeAll(async () => {
  bed = await openServiceTestbed({ schema: 'transcript', migrationsDir });
  store = new TranscriptStore(bed.db, bed.schema);
  outbox = new EventOutbox({
    db: bed.db,
    schema: bed.schema,
    bus: bed.bus,
    logger: createLogger(null, { level: 'silent' }),
  });
  await bed.bus.ensureStream(transcriptEventsStream);
  serve(bed.bus, groupExistsRpc, (req) => ({ exists: knownGroups.get(req.owner_id)?.has(req.id) ?? false }));
});
afterAll(async () => {
  await bed?.close();
});

/** The ServiceError a promise rejects with, to assert its code and message together. */
async function refusal(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ServiceError);
  const { code, message } = err as ServiceError;
  return { code, message };
}

const manual = (ownerId: string, fields: Record<string, string | undefined>) =>
  createManual(
    store,
    bed.bus,
    outbox,
  )({
    owner_id: ownerId,
    name: 'Session',
    session_date: '2024-05-01T18:00:00Z',
    summary: 'Something happened',
    ...fields,
  });

describe('svc.transcript.create-manual', () => {
  it('stores a trimmed name and the date as an ISO timestamp, with a preview of the transcript', async () => {
    const owner = randomUUID();
    const item = await manual(owner, {
      name: '  The Sunken Keep  ',
      session_date: '2024-05-01T20:30:00+02:00',
      transcript: 'x'.repeat(150),
    });
    expect(item).toMatchObject({
      name: 'The Sunken Keep',
      session_timestamp: '2024-05-01T18:30:00.000Z',
      source: 'manual',
      status: 'ended',
      preview: `${'x'.repeat(100)}...`,
      group_id: '',
    });
    expect((await store.getItem(owner, item.id))?.name).toBe('The Sunken Keep');
  });

  it('refuses a blank name, an over-long name, and a session with neither summary nor transcript, storing nothing', async () => {
    const owner = randomUUID();
    expect(await refusal(manual(owner, { name: '   ' }))).toEqual({
      code: 'bad_request',
      message: 'Session name is required',
    });
    const tooLong = await refusal(manual(owner, { name: 'n'.repeat(SESSION_NAME_MAX + 1) }));
    expect(tooLong.code).toBe('bad_request');
    expect(tooLong.message).toContain(String(SESSION_NAME_MAX));
    expect(await refusal(manual(owner, { summary: '  ', transcript: '' }))).toEqual({
      code: 'bad_request',
      message: 'Please provide either a summary, a transcript, or an audio file',
    });
    expect(await refusal(manual(owner, { session_date: 'not a date' }))).toEqual({
      code: 'bad_request',
      message: 'Invalid session date',
    });
    expect((await listPage(store)({ owner_id: owner })).items).toEqual([]);
  });

  it('accepts a name of exactly the maximum length', async () => {
    const item = await manual(randomUUID(), { name: 'n'.repeat(SESSION_NAME_MAX) });
    expect(item.name).toHaveLength(SESSION_NAME_MAX);
  });

  it('puts the session in a group only when the group service knows the group', async () => {
    const owner = randomUUID();
    const groupId = randomUUID();
    expect(await refusal(manual(owner, { group_id: groupId }))).toEqual({
      code: 'not_found',
      message: 'Group not found',
    });
    knownGroups.set(owner, new Set([groupId]));
    expect((await manual(owner, { group_id: groupId })).group_id).toBe(groupId);
  });

  it('offers a session without a summary to the summary service, once', async () => {
    const owner = randomUUID();
    const offered: unknown[] = [];
    let announce: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (announce = resolve));
    const consumer = await bed.bus.consume(
      {
        stream: TRANSCRIPT_EVENTS_STREAM,
        durable: `test-${owner}`,
        filterSubject: transcriptReadyForSummaryEvent.subject,
      },
      async (payload) => {
        if ((payload as { owner_id: string }).owner_id !== owner) return;
        offered.push(payload);
        announce();
      },
    );
    try {
      await manual(owner, { summary: 'already summarised' });
      const item = await manual(owner, { summary: '', transcript: 'A long evening of dice.' });
      await arrived;
      expect(offered).toEqual([{ owner_id: owner, transcript_id: item.id }]);
    } finally {
      await consumer.stop();
    }
  });
});

describe('svc.transcript.update and rename', () => {
  it('renames a session, trimming the name, and leaves its other fields alone', async () => {
    const owner = randomUUID();
    const item = await manual(owner, { summary: 'kept' });
    const renamed = await renameTranscript(store)({ owner_id: owner, id: item.id, name: '  Renamed ' });
    expect(renamed).toMatchObject({ id: item.id, name: 'Renamed', summary: 'kept' });
  });

  it("refuses a blank rename, and answers not found for another owner's session", async () => {
    const owner = randomUUID();
    const item = await manual(owner, {});
    expect(await refusal(renameTranscript(store)({ owner_id: owner, id: item.id, name: ' ' }))).toEqual({
      code: 'bad_request',
      message: 'Transcript name cannot be empty.',
    });
    expect(
      await refusal(renameTranscript(store)({ owner_id: randomUUID(), id: item.id, name: 'Mine now' })),
    ).toEqual({ code: 'not_found', message: 'Transcript not found' });
    expect(await refusal(renameTranscript(store)({ owner_id: owner, id: 'not-a-uuid', name: 'x' }))).toEqual({
      code: 'not_found',
      message: 'Transcript not found',
    });
    expect((await store.getItem(owner, item.id))?.name).toBe('Session');
  });

  it('changes the date and transcript only when sent, and refuses an over-long name without writing', async () => {
    const owner = randomUUID();
    const item = await manual(owner, { transcript: 'original text' });
    const update = updateTranscript(store);
    const updated = await update({ owner_id: owner, id: item.id, name: 'New name', summary: 'New summary' });
    expect(updated).toMatchObject({
      name: 'New name',
      summary: 'New summary',
      session_timestamp: item.session_timestamp,
      preview: 'original text',
    });
    const tooLong = await refusal(
      update({ owner_id: owner, id: item.id, name: 'n'.repeat(SESSION_NAME_MAX + 1), summary: 'x' }),
    );
    expect(tooLong.code).toBe('bad_request');
    expect(await refusal(update({ owner_id: owner, id: item.id, name: '', summary: 'x' }))).toEqual({
      code: 'bad_request',
      message: 'Session name is required',
    });
    expect((await store.getItem(owner, item.id))?.name).toBe('New name');
  });
});

describe('svc.transcript.list-page', () => {
  it('pages newest first with a cursor until the last page, which has no next', async () => {
    const owner = randomUUID();
    for (const day of ['01', '02', '03', '04', '05']) {
      await manual(owner, { name: `Day ${day}`, session_date: `2024-03-${day}T12:00:00Z` });
    }
    const list = listPage(store);
    const first = await list({ owner_id: owner, limit: 2 });
    expect(first.items.map((i) => i.name)).toEqual(['Day 05', 'Day 04']);
    expect(first.next).toEqual(expect.any(String));
    const second = await list({ owner_id: owner, limit: 2, after: first.next! });
    expect(second.items.map((i) => i.name)).toEqual(['Day 03', 'Day 02']);
    const last = await list({ owner_id: owner, limit: 2, after: second.next! });
    expect(last.items.map((i) => i.name)).toEqual(['Day 01']);
    expect(last.next).toBeNull();
  });

  it('gives no next cursor when the page is exactly full, and an empty page for a new owner', async () => {
    const owner = randomUUID();
    await manual(owner, { name: 'A' });
    await manual(owner, { name: 'B' });
    expect((await listPage(store)({ owner_id: owner, limit: 2 })).next).toBeNull();
    expect(await listPage(store)({ owner_id: randomUUID() })).toEqual({ items: [], next: null });
  });

  it('keeps sessions of the same date apart across pages (no repeats, none skipped)', async () => {
    const owner = randomUUID();
    const names = ['s1', 's2', 's3', 's4'];
    for (const name of names) await manual(owner, { name, session_date: '2024-06-01T12:00:00Z' });
    const seen: string[] = [];
    let after: string | undefined;
    do {
      const page = await listPage(store)({ owner_id: owner, limit: 1, ...(after ? { after } : {}) });
      seen.push(...page.items.map((i) => i.name));
      after = page.next ?? undefined;
    } while (after);
    expect([...seen].sort()).toEqual(names);
  });

  it('lists only the given group, and nothing for a group id that is not a uuid', async () => {
    const owner = randomUUID();
    const groupId = randomUUID();
    knownGroups.set(owner, new Set([groupId]));
    await manual(owner, { name: 'Grouped', group_id: groupId });
    await manual(owner, { name: 'Loose' });
    const list = listPage(store);
    expect((await list({ owner_id: owner, group_id: groupId })).items.map((i) => i.name)).toEqual([
      'Grouped',
    ]);
    expect((await list({ owner_id: owner, group_id: 'campaign-1' })).items).toEqual([]);
  });

  it('refuses a malformed cursor as a bad request', async () => {
    const owner = randomUUID();
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    for (const after of [
      'garbage!',
      forged(['2024-01-01', '2024-01-01']),
      forged(['2024-01-01', '2024-01-01', 'not-a-uuid']),
      forged(['yesterday', '2024-01-01', randomUUID()]),
      forged({ ts: '2024-01-01' }),
    ]) {
      expect(await refusal(listPage(store)({ owner_id: owner, after }))).toEqual({
        code: 'bad_request',
        message: 'Invalid list cursor',
      });
    }
  });
});

describe('evt.group.deleted', () => {
  it("ungroups that group's sessions of its owner only, ends the group's links, and a redelivery changes nothing", async () => {
    const owner = randomUUID();
    const stranger = randomUUID();
    const groupId = randomUUID();
    knownGroups.set(owner, new Set([groupId]));
    knownGroups.set(stranger, new Set([groupId]));
    const mine = await manual(owner, { group_id: groupId });
    const theirs = await manual(stranger, { group_id: groupId });
    const shares = new ShareStore(bed.db, bed.schema);
    await shares.create(owner, 'group', groupId, 'token-of-the-group', null);
    const consume = onGroupDeleted(store, shares, createLogger('transcript-test', { level: 'silent' }));
    await consume({ owner_id: owner, group_id: groupId });
    await consume({ owner_id: owner, group_id: groupId });
    expect(await shares.resolve('token-of-the-group')).toBeNull();
    expect((await store.getItem(owner, mine.id))?.group_id).toBe('');
    expect((await store.getItem(stranger, theirs.id))?.group_id).toBe(groupId);
  });
});

describe('svc.transcript.retry-audio and the recording a failed session keeps', () => {
  const provider = { name: 'deepgram' } as SpeechProvider;
  beforeAll(async () => {
    await bed.bus.ensureStream(audioJobsStream);
  });

  /** A failed audio session; its recording stored when `stored`. */
  async function failedAudio(owner: string, stored: boolean): Promise<{ id: string; blob: string }> {
    const blob = randomUUID();
    if (stored)
      await bed.bus.blobs.put(AUDIO_BLOB_BUCKET, blob, Readable.from([Buffer.from('RIFF....WAVE')]));
    const item = await store.createAudio(
      owner,
      {
        name: 'Recorded session',
        sessionTimestamp: '2024-05-01T18:00:00.000Z',
        summary: '',
        groupId: null,
        provider: 'deepgram',
        audio: { blob, size: 12, format: 'wav' },
      },
      async () => {},
    );
    await store.failAudio(owner, item.id, 'Transcription failed: Deepgram could not be reached');
    return { id: item.id, blob };
  }

  it('queues a failed session again from its stored recording, once', async () => {
    const owner = randomUUID();
    const { id } = await failedAudio(owner, true);
    expect((await store.get(owner, id))!.transcription_retryable).toBe(true);
    const retry = retryAudio(store, bed.bus, outbox, provider);
    expect(await retry({ owner_id: owner, id })).toMatchObject({
      id,
      transcription_status: 'queued',
      transcription_error: '',
    });
    expect((await store.get(owner, id))!.transcription_retryable).toBe(false);
    expect(await refusal(retry({ owner_id: owner, id }))).toEqual({
      code: 'conflict',
      message: 'Only a failed transcription can be tried again.',
    });
    expect((await refusal(retry({ owner_id: randomUUID(), id }))).code).toBe('not_found');
  });

  it('says so when the recording is gone, and stops offering the retry', async () => {
    const owner = randomUUID();
    const { id } = await failedAudio(owner, false);
    expect(await refusal(retryAudio(store, bed.bus, outbox, provider)({ owner_id: owner, id }))).toEqual({
      code: 'conflict',
      message: AUDIO_RECORDING_GONE,
    });
    expect(await store.get(owner, id)).toMatchObject({
      transcription_status: 'failed',
      transcription_retryable: false,
    });
  });

  it('deletes the kept recording with the session', async () => {
    const owner = randomUUID();
    const { id, blob } = await failedAudio(owner, true);
    expect(await bed.bus.blobs.info(AUDIO_BLOB_BUCKET, blob)).not.toBeNull();
    await deleteTranscript(store, bed.bus)({ owner_id: owner, id });
    expect(await bed.bus.blobs.info(AUDIO_BLOB_BUCKET, blob)).toBeNull();
    expect(await store.get(owner, id)).toBeNull();
  });
});
