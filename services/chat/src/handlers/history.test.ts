import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transcriptExistsRpc, type ChatMessage } from '@chronicler/contracts';
import { serve, ServiceError } from '@chronicler/kit';
import { openServiceTestbed, type ServiceTestbed } from '@chronicler/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChatStore } from '../db/store.ts';
import { chatHistory, HISTORY_SHOWN } from './history.ts';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

let bed: ServiceTestbed;
let store: ChatStore;
/** Transcripts the transcript service would say exist, as `owner/transcript`. */
const transcripts = new Set<string>();

beforeAll(async () => {
  bed = await openServiceTestbed({ schema: 'chat', migrationsDir });
  store = new ChatStore(bed.db, bed.schema);
  serve(bed.bus, transcriptExistsRpc, (req) => ({ exists: transcripts.has(`${req.owner_id}/${req.id}`) }));
});
afterAll(async () => {
  await bed?.close();
});

function conversation() {
  const owner = randomUUID();
  const transcript = randomUUID();
  transcripts.add(`${owner}/${transcript}`);
  return {
    owner,
    transcript,
    history: () => chatHistory(store, bed.bus)({ owner_id: owner, transcript_id: transcript }),
  };
}

describe('svc.chat.history', () => {
  it('shows the conversation oldest first, and an empty one for a transcript without chat', async () => {
    const { owner, transcript, history } = conversation();
    expect(await history()).toEqual({ messages: [] });
    const turns: ChatMessage[] = [
      { role: 'user', content: 'Who is Strahd?' },
      { role: 'assistant', content: 'The vampire lord of Barovia.' },
    ];
    await store.append(owner, transcript, turns);
    expect(await history()).toEqual({ messages: turns });
  });

  it("answers not found for another owner's transcript, even when it has a conversation", async () => {
    const { owner, transcript } = conversation();
    await store.append(owner, transcript, [{ role: 'user', content: 'private' }]);
    const err = await chatHistory(
      store,
      bed.bus,
    )({ owner_id: randomUUID(), transcript_id: transcript }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ code: 'not_found', message: 'Transcript not found' });
  });

  it('shows only the most recent messages of a long conversation', async () => {
    const { owner, transcript, history } = conversation();
    const turns = Array.from({ length: HISTORY_SHOWN.limit + 5 }, (_, i): ChatMessage => ({
      role: i % 2 ? 'assistant' : 'user',
      content: `message ${i}`,
    }));
    await store.append(owner, transcript, turns);
    const { messages } = await history();
    expect(messages).toHaveLength(HISTORY_SHOWN.limit);
    expect(messages[0]!.content).toBe('message 5');
    expect(messages.at(-1)!.content).toBe(`message ${HISTORY_SHOWN.limit + 4}`);
  });

  it('stops counting back at the character budget, but always shows the newest message', async () => {
    const { owner, transcript, history } = conversation();
    const half = 'a'.repeat(HISTORY_SHOWN.maxChars / 2);
    await store.append(owner, transcript, [
      { role: 'user', content: `old ${half}` },
      { role: 'assistant', content: half },
      { role: 'user', content: half },
    ]);
    expect((await history()).messages.map((m) => m.content)).toEqual([half, half]);

    const huge = conversation();
    const oversized = 'b'.repeat(HISTORY_SHOWN.maxChars + 1);
    await store.append(huge.owner, huge.transcript, [
      { role: 'user', content: 'earlier' },
      { role: 'assistant', content: oversized },
    ]);
    expect((await huge.history()).messages).toEqual([{ role: 'assistant', content: oversized }]);
  });
});
