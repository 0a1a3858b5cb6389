import type { Group, GroupPrep, PlanningMessage, PlanningServerFrame } from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startOpenAiPeer, type OpenAiPeer } from '../peers/openai.ts';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { startSystem, testMode, type TestSystem } from '../support/system.ts';

// The planning AI edits the prep checklist (#49): its addPrepItems action is applied by the
// planning service through the prep store, so GET /api/groups/{id}/prep lists the items it added.

/** One planning message over the group's socket (as the planning page sends it), and the reply. */
async function askPlanning(
  url: string,
  token: string,
  groupId: string,
  content: string,
): Promise<PlanningMessage> {
  const socket = new WebSocket(
    `${url.replace(/^http/, 'ws')}/api/ws/planning?${new URLSearchParams({ group_id: groupId }).toString()}`,
    { headers: { authorization: `Bearer ${token}` } },
  );
  try {
    return await new Promise<PlanningMessage>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no planning reply')), 90_000);
      socket.on('error', reject);
      socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as PlanningServerFrame;
        if (frame.type === 'chat_history') {
          socket.send(
            JSON.stringify({
              type: 'chat_message',
              content,
              canvasContent: 'Session 3 plan',
              selection: null,
              selectedText: '',
            }),
          );
        } else if (frame.type === 'message') {
          clearTimeout(timer);
          resolve(frame.message);
        } else {
          clearTimeout(timer);
          reject(new Error(`unexpected frame ${JSON.stringify(frame)}`));
        }
      });
    });
  } finally {
    socket.close(1000);
  }
}

const SUMMARY = [
  'The party reaches Kraghammer and meets Nostoc Greyspine.',
  '',
  '## Open threads',
  '- The missing miners of the Greyspine mines',
  '- **Clarota** the mind flayer wants help',
].join('\n');

async function campaignWithSession(url: string, token: string, name: string): Promise<Group> {
  const group = (await apiCall<Group>(url, 'POST', '/groups', token, { name })).body;
  await apiCall(url, 'POST', '/transcripts/manual', token, {
    name: 'Arrival at Kraghammer',
    session_date: '2015-03-12T00:00:00.000Z',
    transcript: '[00:00:05] MATT: You arrive at the gates of Kraghammer.',
    summary: SUMMARY,
    group_id: group.group_id,
  });
  return group;
}

const prepOf = async (url: string, token: string, group: Group) =>
  (await apiCall<GroupPrep>(url, 'GET', `/groups/${group.group_id}/prep`, token)).body.items;

describe(`the planning AI adds prep items (${testMode} mode, offline engine)`, () => {
  let system: TestSystem;
  let token: string;

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true' } });
    token = (await localSignIn(system.url, 'vex')).cookie;
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  it('proposes the open threads as prep items, adds them once, and the game master can tick them', async () => {
    const group = await campaignWithSession(system.url, token, 'Vox Machina');
    await apiCall(system.url, 'POST', `/groups/${group.group_id}/prep`, token, {
      text: 'The missing miners of the Greyspine mines',
    });
    const reply = await askPlanning(system.url, token, group.group_id, 'Add prep items for the next session');
    expect(JSON.parse(reply.content)).toEqual({
      actionHint: 'addPrepItems',
      items: ['Clarota the mind flayer wants help'],
    });
    const items = await prepOf(system.url, token, group);
    expect(items.map((i) => [i.text, i.done])).toEqual([
      ['The missing miners of the Greyspine mines', false],
      ['Clarota the mind flayer wants help', false],
    ]);
    // The AI's item is an item like any other: the game master ticks it.
    const added = items[1]!;
    const ticked = await apiCall<{ done: boolean; ticked_by: string }>(
      system.url,
      'PATCH',
      `/groups/${group.group_id}/prep/${added.id}`,
      token,
      { done: true },
    );
    expect(ticked.body).toMatchObject({ done: true, ticked_by: 'user' });

    const again = await askPlanning(system.url, token, group.group_id, 'Make me a checklist');
    expect(again.content).toBe(
      'Those prep items are already in the checklist (or it is full): nothing was added.',
    );
    expect(await prepOf(system.url, token, group)).toHaveLength(2);
  });
});

describe(`the planning AI adds prep items (${testMode} mode, OpenAI-compatible model)`, () => {
  let peer: OpenAiPeer;
  let system: TestSystem;
  let token: string;

  beforeAll(async () => {
    peer = await startOpenAiPeer();
    system = await startSystem({ env: { ...peer.env('planning-model-1'), AUTH_LOCAL_ENABLED: 'true' } });
    token = (await localSignIn(system.url, 'scanlan')).cookie;
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
    await peer?.close();
  });

  it("adds the model's addPrepItems answer to the checklist, and shows a plain answer as chat", async () => {
    const group = await campaignWithSession(system.url, token, 'Vox Machina');
    const before = peer.requests.length;
    peer.answers.push(
      JSON.stringify({
        actionHint: 'addPrepItems',
        items: ['Nostoc asks the party to find the miners', '  ', 'Clarota reveals the Duergar plot'],
      }),
    );
    const reply = await askPlanning(system.url, token, group.group_id, 'Give me prep items for session 3');
    const request = peer.requests[before]!;
    expect(request.messages[0]!.content).toContain('addPrepItems');
    expect(JSON.parse(reply.content)).toEqual({
      actionHint: 'addPrepItems',
      items: ['Nostoc asks the party to find the miners', 'Clarota reveals the Duergar plot'],
    });
    expect((await prepOf(system.url, token, group)).map((i) => i.text)).toEqual([
      'Nostoc asks the party to find the miners',
      'Clarota reveals the Duergar plot',
    ]);

    peer.answers.push(JSON.stringify({ reply: 'Start in the mines.' }));
    const chat = await askPlanning(system.url, token, group.group_id, 'Where should session 3 start?');
    expect(chat.content).toBe('Start in the mines.');
    expect(await prepOf(system.url, token, group)).toHaveLength(2);
  });
});
