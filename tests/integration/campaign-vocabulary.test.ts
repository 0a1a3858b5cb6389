import { groupKeytermsRpc, KEYTERMS_MAX, type Group, type GroupVocabulary } from '@chronicler/contracts';
import { call, ServiceError } from '@chronicler/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { crd3Blurb, crd3Transcript } from '../support/crd3.ts';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';

interface User {
  token: string;
  id: string;
}

describe(`campaign vocabulary (${testMode} mode)`, () => {
  let system: TestSystem;
  let alice: User;
  let bob: User;
  let group: Group;

  const signIn = async (name: string): Promise<User> => {
    const r = await localSignIn(system.url, name);
    return { token: r.cookie, id: r.body.user?.id ?? '' };
  };
  const api = <T = Record<string, unknown>>(
    method: string,
    path: string,
    token: string | undefined,
    body?: unknown,
  ) => apiCall<T>(system.url, method, path, token, body);
  const vocabulary = (user: User, id = group.id) =>
    api<GroupVocabulary & { detail?: string }>('GET', `/groups/${id}/vocabulary`, user.token);
  const putTerms = (user: User, terms: unknown, id = group.id) =>
    api<GroupVocabulary & { detail?: string }>('PUT', `/groups/${id}/vocabulary`, user.token, { terms });

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true' } });
    alice = await signIn('alice');
    bob = await signIn('bob');
    const created = await api<Group>('POST', '/groups', alice.token, { name: 'Vox Machina' });
    expect(created.status).toBe(200);
    group = created.body;
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  it("stores the user's terms trimmed and without repeats, and answers them back", async () => {
    expect(await vocabulary(alice)).toEqual({ status: 200, body: { terms: [], learned: [] } });
    const saved = await putTerms(alice, ['  Tharivol ', 'Neverwinter', 'THARIVOL', "Vex'ahlia"]);
    expect(saved).toEqual({
      status: 200,
      body: { terms: ['Tharivol', 'Neverwinter', "Vex'ahlia"], learned: [] },
    });
    expect((await vocabulary(alice)).body.terms).toEqual(['Tharivol', 'Neverwinter', "Vex'ahlia"]);
  });

  it('refuses terms over the limits with a message and keeps the stored list', async () => {
    const tooMany = await putTerms(
      alice,
      Array.from({ length: 201 }, (_, i) => `Name ${i}`),
    );
    expect(tooMany).toEqual({ status: 400, body: { detail: 'Vocabulary cannot have more than 200 terms' } });
    const tooLong = await putTerms(alice, ['x'.repeat(51)]);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.detail).toContain('cannot exceed 50 characters');
    expect(await putTerms(alice, ['Pike', ' '])).toEqual({
      status: 400,
      body: { detail: 'Vocabulary terms cannot be empty' },
    });
    expect((await putTerms(alice, 'Pike')).status).toBe(400);
    expect((await putTerms(alice, [42])).status).toBe(400);
    expect((await vocabulary(alice)).body.terms).toEqual(['Tharivol', 'Neverwinter', "Vex'ahlia"]);
  });

  it("answers 404 for another user's group and 401 when signed out, changing nothing", async () => {
    expect(await vocabulary(bob)).toEqual({ status: 404, body: { detail: 'Group not found' } });
    expect(await putTerms(bob, ['Mine'])).toEqual({ status: 404, body: { detail: 'Group not found' } });
    expect((await vocabulary(alice, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await api('GET', `/groups/${group.id}/vocabulary`, undefined)).status).toBe(401);
    expect((await vocabulary(alice)).body.terms).toEqual(['Tharivol', 'Neverwinter', "Vex'ahlia"]);
  });

  it("learns the campaign's names from the sessions created in the group", async () => {
    for (const [episode, name] of [
      ['C1E001', 'Arrival at Kraghammer'],
      ['C1E005', 'The Trick About Falling'],
    ] as const) {
      const res = await api('POST', '/transcripts/manual', alice.token, {
        name,
        session_date: '2015-03-12T00:00:00.000Z',
        transcript: crd3Transcript(episode, { timed: true, maxChars: 150_000 }),
        summary: crd3Blurb(episode),
        group_id: group.id,
      });
      expect(res.status).toBe(200);
    }
    // Another user's group learns nothing from alice's sessions.
    const { body } = await vocabulary(alice);
    expect(body.terms).toEqual(['Tharivol', 'Neverwinter', "Vex'ahlia"]);
    for (const name of ['Grog', 'Scanlan', 'Pike', 'Percy', 'Keyleth', 'Kraghammer']) {
      expect(body.learned, name).toContain(name);
    }
    for (const word of ['The', 'Okay', 'Yeah', 'Alright', 'MATT']) expect(body.learned).not.toContain(word);
    // The user's own terms are not repeated among the learned names, whatever their case.
    expect(body.learned.map((n) => n.toLowerCase())).not.toContain("vex'ahlia");
    const bobGroup = await api<Group>('POST', '/groups', bob.token, { name: 'Empty' });
    expect((await vocabulary(bob, bobGroup.body.id)).body).toEqual({ terms: [], learned: [] });
  });

  it("svc.group.keyterms sends the user's terms first, then the learned names, capped", async () => {
    const bus = system.platform!.bus;
    await putTerms(alice, ['Tharivol', 'grog']);
    const answer = await call(bus, groupKeytermsRpc, { owner_id: alice.id, group_id: group.id });
    expect(answer.user_terms).toEqual(['Tharivol', 'grog']);
    expect(answer.keyterms.slice(0, 2)).toEqual(['Tharivol', 'grog']);
    expect(answer.learned_terms).not.toContain('Grog');
    expect(answer.learned_terms).toEqual(expect.arrayContaining(['Scanlan', 'Pike', 'Kraghammer']));
    // Then learned names in their order (one that does not fit the token budget is skipped).
    const positions = answer.keyterms.slice(2).map((t) => answer.learned_terms.indexOf(t));
    expect(positions.length).toBeGreaterThan(20);
    expect(positions.every((p, i) => p >= 0 && (i === 0 || p > positions[i - 1]!))).toBe(true);
    expect(positions.slice(0, 10)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(answer.keyterms.length).toBeLessThanOrEqual(KEYTERMS_MAX);
    const refused = await call(bus, groupKeytermsRpc, { owner_id: bob.id, group_id: group.id }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(ServiceError);
    expect((refused as ServiceError).code).toBe('not_found');
  });

  it('describes both routes in the OpenAPI document', async () => {
    const doc = await api<{ paths: Record<string, Record<string, unknown>> }>(
      'GET',
      '/openapi.json',
      undefined,
    );
    const path = doc.body.paths['/api/groups/{id}/vocabulary'];
    expect(Object.keys(path ?? {}).sort()).toEqual(['get', 'put']);
  });
});
