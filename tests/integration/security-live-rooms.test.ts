import { LiveSocketEvents } from '@chronicler/contracts';
import { busSink } from '@chronicler/voice-bot/replay';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

/** Joins one socket may send per 10 s before the gateway refuses them (live-socket.ts). */
const JOINS_PER_SOCKET = 16;
const ROUNDS = 4;
const SNOOPS = 6;

describe(`a live room is joined only after the owner check (${testMode} mode)`, () => {
  let system: TestSystem;
  const sockets: Socket[] = [];
  const viewers: LiveViewer[] = [];

  beforeAll(async () => {
    system = await startSystem({ env: { AUTH_LOCAL_ENABLED: 'true' } });
  }, 120_000);
  afterAll(async () => {
    for (const s of sockets) s.close();
    for (const v of viewers) v.close();
    await system?.stop();
  });

  it("another user's concurrent re-joins from several sockets receive no frame of the owner's session", async () => {
    const alice = await localSignIn(system.url, 'rooms-alice');
    const bob = await localSignIn(system.url, 'rooms-bob');
    const sink = busSink(system.platform!.bus);
    const { transcriptId } = await sink.start({ owner_id: alice.body.user!.id, name: 'Private table' });
    await waitFor(
      async () =>
        (await apiCall(system.url, 'GET', `/transcripts/${transcriptId}`, alice.cookie)).status === 200,
    );
    const owner = new LiveViewer(system.url, transcriptId, alice.cookie);
    viewers.push(owner);
    await waitFor(() => owner.joined !== null, 10_000);

    // Every frame bob's sockets get, refusals apart.
    const leaked: string[] = [];
    const refusals: number[] = [];
    const snoops = await Promise.all(
      Array.from({ length: SNOOPS }, async (_, i) => {
        const s = io(system.url, {
          path: '/socket.io',
          transports: ['websocket'],
          auth: { token: bob.cookie },
          reconnection: false,
        });
        sockets.push(s);
        refusals[i] = 0;
        s.onAny((event: string) => {
          if (event === LiveSocketEvents.error) refusals[i]! += 1;
          else leaked.push(event);
        });
        await new Promise<void>((resolve, reject) => {
          s.once('connect', () => resolve());
          s.once('connect_error', reject);
        });
        return s;
      }),
    );

    let seq = 0;
    let finals = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      // Each socket sends its joins at once, so each is in flight while the owner's lines go out.
      for (const s of snoops) {
        for (let j = 0; j < JOINS_PER_SOCKET / ROUNDS; j++)
          s.emit(LiveSocketEvents.join, { transcriptId, last_seq: 0 });
      }
      const utterances = [];
      for (let k = 0; k < 30; k++) {
        seq += 1;
        const final = k % 6 === 5;
        utterances.push({
          utterance_id: `u-${seq}`,
          text: `Secret line ${seq}`,
          speaker_tag: 1,
          start_seconds: seq,
          end_seconds: seq + 0.5,
          is_final: final,
          ...(final ? { final_index: ++finals } : {}),
        });
      }
      await sink.send(transcriptId, utterances);
      const expected = (round * JOINS_PER_SOCKET) / ROUNDS;
      await waitFor(() => refusals.every((n) => n >= expected), 20_000);
    }
    // The owner got the lines that went out meanwhile, so they did go to the room.
    await owner.untilLines(ROUNDS * 5);

    expect(refusals).toEqual(Array.from({ length: SNOOPS }, () => JOINS_PER_SOCKET));
    expect(leaked).toEqual([]);
  }, 90_000);
});
