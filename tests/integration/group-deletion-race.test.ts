import {
  groupDeletedEvent,
  groupExistsRpc,
  type Group,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { ServiceError, type Bus } from '@chronicler/kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

/**
 * Assigning a session to a group while that group is deleted. The services of this test
 * system share one bus object, so the test wraps its calls to interleave the two requests
 * at exactly the point where the bug lived: after the transcript service has been told the
 * group exists and before it writes the session's group id.
 */
describe(`deleting a group while a session is assigned to it (${testMode} mode)`, () => {
  let system: TestSystem;
  let bus: Bus;
  let original: { request: Bus['request']; publishDurable: Bus['publishDurable'] };
  let alice: { token: string; id: string };

  beforeAll(async () => {
    // Sessions keep the summaries the test gives them (summaries.test.ts covers automatic ones).
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true', SUMMARY_AUTOMATIC: 'false' } });
    bus = system.platform!.bus;
    original = { request: bus.request, publishDurable: bus.publishDurable };
    const a = await localSignIn(system.url, 'alice');
    alice = { token: a.cookie, id: a.body.user?.id ?? '' };
  }, 120_000);
  afterEach(() => {
    bus.request = original.request;
    bus.publishDurable = original.publishDurable;
  });
  afterAll(async () => {
    await system?.stop();
  });

  const api = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
    apiCall<T>(system.url, method, path, alice.token, body);
  const createSession = async (name: string): Promise<string> => {
    const res = await api<TranscriptListItem>('POST', '/transcripts/manual', {
      name,
      session_date: '2026-03-12T00:00:00.000Z',
      transcript: 'MATT: Roll for initiative.',
    });
    expect(res.status).toBe(200);
    return res.body.id;
  };
  const createGroup = async (name: string): Promise<string> => {
    const res = await api<Group>('POST', '/groups', { name });
    expect(res.status).toBe(200);
    return res.body.group_id;
  };
  const storedGroupId = async (sessionId: string): Promise<string | null> =>
    (
      await system.platform!.db.query<{ group_id: string | null }>(
        'select group_id from transcript.transcripts where id = $1',
        [sessionId],
      )
    )[0]!.group_id;

  it('leaves the session ungrouped and answers 404 when the group is deleted before the assignment is written', async () => {
    const groupId = await createGroup('Doomed Campaign');
    const witness = await createSession('Already in the group');
    const racer = await createSession('Assigned during the delete');
    expect((await api('PUT', `/transcripts/${witness}/assign-group`, { group_id: groupId })).status).toBe(
      200,
    );

    // When the transcript service has heard "the group exists" for the racing assignment,
    // delete the group and let the transcript service consume evt.group.deleted (the
    // witness session becomes ungrouped) before the answer reaches it.
    const exists = original.request;
    let interleaved = false;
    bus.request = (async (subject: string, payload: unknown, opts?: Parameters<Bus['request']>[2]) => {
      const answer = await exists.call(bus, subject, payload, opts);
      const id = (payload as { id?: string } | null)?.id;
      if (subject === groupExistsRpc.subject && id === groupId && !interleaved) {
        interleaved = true;
        expect((await api('DELETE', `/groups/${groupId}`)).status).toBe(200);
        await waitFor(async () => (await storedGroupId(witness)) === null);
      }
      return answer;
    }) as Bus['request'];

    const assigned = await api('PUT', `/transcripts/${racer}/assign-group`, { group_id: groupId });
    expect(interleaved).toBe(true);
    expect(assigned).toEqual({ status: 404, body: { detail: 'Group not found' } });
    expect(await storedGroupId(racer)).toBeNull();
    const groups = await api<Group[]>('GET', '/groups');
    expect(groups.body.map((g) => g.group_id)).not.toContain(groupId);
    const sessions = await api<TranscriptListItem[]>('GET', '/transcripts');
    expect(sessions.body.filter((s) => s.group_id === groupId)).toEqual([]);
  });

  it('deletes the group even when its event cannot be published at that moment, and ungroups the sessions once the bus answers', async () => {
    const groupId = await createGroup('Survivor');
    const member = await createSession('Member');
    expect((await api('PUT', `/transcripts/${member}/assign-group`, { group_id: groupId })).status).toBe(200);

    // The bus refuses the deletion's event (twice), as an outage at that moment would.
    let refused = 0;
    let published = 0;
    const publish = original.publishDurable;
    bus.publishDurable = (async (subject: string, payload: unknown, opts?: { msgId?: string }) => {
      if (subject === groupDeletedEvent.subject && (payload as { group_id: string }).group_id === groupId) {
        if (refused < 2) {
          refused++;
          throw new ServiceError('unavailable', 'The message bus is unreachable');
        }
        published++;
      }
      return publish.call(bus, subject, payload, opts);
    }) as Bus['publishDurable'];

    // The delete is stored and answered as such: no 5xx for a change that happened.
    expect(await api('DELETE', `/groups/${groupId}`)).toEqual({ status: 200, body: { ok: true } });
    const groups = await api<Group[]>('GET', '/groups');
    expect(groups.body.map((g) => g.group_id)).not.toContain(groupId);
    expect((await api('PUT', `/transcripts/${member}/assign-group`, { group_id: groupId })).status).toBe(404);
    // The event waited in the outbox, committed with the delete, and went once the bus took it.
    await waitFor(async () => (await storedGroupId(member)) === null, 30_000);
    expect(refused).toBe(2);
    expect(published).toBe(1);
    expect((await api('DELETE', `/groups/${groupId}`)).status).toBe(404);
  });
});
