// A change and the event announcing it commit together (the services' transactional outbox):
// a bus that refuses the event at that moment delays it, never answers 5xx for a change that
// is stored, and never makes a retry create a second one. The services of this test system
// share one bus object, so the test makes it refuse exactly the events it names.
import {
  transcriptionRecordedEvent,
  transcriptReadyForSummaryEvent,
  type Transcript,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { ServiceError, type Bus } from '@chronicler/kit';
import { busSink } from '@chronicler/voice-bot/replay';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

describe(`events written with their data (${testMode} mode)`, () => {
  let system: TestSystem;
  let bus: Bus;
  let publishDurable: Bus['publishDurable'];
  let owner: { token: string; id: string };

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true' } });
    bus = system.platform!.bus;
    publishDurable = bus.publishDurable;
    const r = await localSignIn(system.url, 'gm');
    owner = { token: r.cookie, id: r.body.user!.id };
  }, 120_000);
  afterEach(() => {
    bus.publishDurable = publishDurable;
  });
  afterAll(async () => {
    await system?.stop();
  });

  const api = <T = Record<string, unknown>>(method: string, p: string, body?: unknown) =>
    apiCall<T>(system.url, method, p, owner.token, body);

  /** The bus refuses the first `times` publishes of `subject` that `match`; counts those that go. */
  function refuse(subject: string, match: (payload: unknown) => boolean, times: number) {
    const counts = { refused: 0, published: 0 };
    bus.publishDurable = (async (s: string, payload: unknown, opts?: { msgId?: string }) => {
      if (s === subject && match(payload)) {
        if (counts.refused < times) {
          counts.refused++;
          throw new ServiceError('unavailable', 'The message bus is unreachable');
        }
        counts.published++;
      }
      return publishDurable.call(bus, s, payload, opts);
    }) as Bus['publishDurable'];
    return counts;
  }

  it('answers 200 for a session whose summary request the bus refused, makes one session, and summarises it once the bus answers', async () => {
    const name = `Refused at first ${Date.now()}`;
    const counts = refuse(
      transcriptReadyForSummaryEvent.subject,
      () => true,
      // Refused by the first relay tries; the outbox keeps it and tries again.
      2,
    );
    const created = await api<TranscriptListItem>('POST', '/transcripts/manual', {
      name,
      session_date: '2026-03-12T00:00:00.000Z',
      transcript: 'MATT: The dragon lands on the tower.\nLAURA: I hide behind the chimney.',
    });
    expect(created.status).toBe(200);
    const list = await api<TranscriptListItem[]>('GET', '/transcripts');
    expect(list.body.filter((t) => t.name === name)).toHaveLength(1);
    await waitFor(
      async () =>
        (await api<Transcript>('GET', `/transcripts/${created.body.id}`)).body.summary_status === 'done',
      60_000,
    );
    expect(counts.refused).toBe(2);
    expect(counts.published).toBe(1);
  });

  it('ends a live session whose usage record the bus refused, and records the usage once', async () => {
    const sink = busSink(bus);
    const { transcriptId } = await sink.start({ owner_id: owner.id, name: 'Usage later' });
    await waitFor(async () => (await api('GET', `/transcripts/${transcriptId}`)).status === 200);
    const counts = refuse(
      transcriptionRecordedEvent.subject,
      (p) => (p as { transcript_id?: string }).transcript_id === transcriptId,
      2,
    );
    await sink.send(transcriptId, [
      {
        utterance_id: 'one',
        text: 'We make camp.',
        speaker_tag: 'MATT',
        speaker_info: { displayName: 'MATT' },
        start_seconds: 1,
        end_seconds: 2,
        is_final: true,
        final_index: 1,
      },
    ]);
    await sink.end(transcriptId, { final_count: 1, interim_count: 0 });
    await waitFor(
      async () => (await api<Transcript>('GET', `/transcripts/${transcriptId}`)).body.status === 'ended',
    );
    await waitFor(() => counts.published === 1, 30_000);
    expect(counts.refused).toBe(2);
    expect(counts.published).toBe(1);
  });
});
