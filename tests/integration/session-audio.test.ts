import { SESSION_AUDIO_BUCKET, type AudioTrack } from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDeepgramPeer, type DeepgramPeer } from '../peers/deepgram.ts';
import { localSignIn } from '../support/auth.ts';
import { wav } from '../support/audio.ts';
import { startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

describe(`a session keeps its recording and serves it with ranges (${testMode} mode)`, () => {
  let deepgram: DeepgramPeer;
  let system: TestSystem;
  let alice: string;
  let bob: string;
  let id = '';
  let second = '';
  // Several 128 KiB chunks of the cluster's object store: a range near the end starts mid-object.
  const audio = wav(600_000);

  const get = (token: string, path: string, headers: Record<string, string> = {}) =>
    fetch(`${system.url}/api${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } });

  /** Uploads a recording and waits until its session keeps it: the session's id. */
  const upload = async (name: string): Promise<string> => {
    const form = new FormData();
    form.append('name', name);
    form.append('session_date', '2026-06-01T00:00:00.000Z');
    form.append('audio', new Blob([audio], { type: 'audio/wav' }), 'night.wav');
    const res = await fetch(`${system.url}/api/transcripts/manual-audio`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice}` },
      body: form,
    });
    const created = String(((await res.json()) as { id: string }).id);
    // The track is kept once transcribed (just after the session reads completed).
    await waitFor(async () => {
      const tracks = await get(alice, `/transcripts/${created}/audio/tracks`);
      return ((await tracks.json()) as AudioTrack[]).length === 1;
    }, 30_000);
    return created;
  };

  beforeAll(async () => {
    deepgram = await startDeepgramPeer();
    system = await startSystem({
      env: { AUTH_LOCAL_ENABLED: 'true', SUMMARY_AUTOMATIC: 'false', ...deepgram.env() },
    });
    alice = (await localSignIn(system.url, 'alice')).cookie;
    bob = (await localSignIn(system.url, 'bob')).cookie;
    id = await upload('Recorded night');
    second = await upload('Another night');
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
    await deepgram?.close();
  });

  it('lists the kept track and serves the whole recording, byte for byte', async () => {
    const tracks = (await (await get(alice, `/transcripts/${id}/audio/tracks`)).json()) as AudioTrack[];
    expect(tracks).toEqual([
      {
        speaker: null,
        size: audio.length,
        format: 'wav',
        content_type: 'audio/wav',
        url: `/api/transcripts/${id}/audio`,
      },
    ]);
    const res = await get(alice, `/transcripts/${id}/audio`);
    expect(res.status).toBe(200);
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(Buffer.from(await res.arrayBuffer()).equals(audio)).toBe(true);
    // Kept in the session bucket; the upload itself is gone.
    const blobs = system.platform?.bus.blobs;
    if (blobs) {
      expect((await blobs.info(SESSION_AUDIO_BUCKET, id))?.size).toBe(audio.length);
    }
  });

  it('answers a range with 206 and exactly those bytes, a suffix range, and 416 past the end', async () => {
    const part = await get(alice, `/transcripts/${id}/audio`, { range: 'bytes=1000-1999' });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 1000-1999/${audio.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(audio.subarray(1000, 2000))).toBe(true);
    const open = await get(alice, `/transcripts/${id}/audio`, { range: `bytes=${audio.length - 5}-` });
    expect(Buffer.from(await open.arrayBuffer()).equals(audio.subarray(audio.length - 5))).toBe(true);
    const suffix = await get(alice, `/transcripts/${id}/audio`, { range: 'bytes=-44' });
    expect(suffix.status).toBe(206);
    expect(Buffer.from(await suffix.arrayBuffer()).equals(audio.subarray(audio.length - 44))).toBe(true);
    const past = await get(alice, `/transcripts/${id}/audio`, { range: `bytes=${audio.length}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${audio.length}`);
  });

  it('answers a range near the end, across a chunk boundary, with exactly those bytes', async () => {
    for (const [start, end] of [
      [audio.length - 200_000, audio.length - 100_001],
      [4 * 128 * 1024 - 10, audio.length - 1],
      [3 * 128 * 1024, 3 * 128 * 1024 + 65_535],
    ] as const) {
      const part = await get(alice, `/transcripts/${id}/audio`, { range: `bytes=${start}-${end}` });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes ${start}-${end}/${audio.length}`);
      expect(Buffer.from(await part.arrayBuffer()).equals(audio.subarray(start, end + 1))).toBe(true);
    }
  });

  it('answers 404 to another user, to a speaker with no track, and to a session with nothing kept', async () => {
    expect((await get(bob, `/transcripts/${id}/audio`)).status).toBe(404);
    expect((await get(bob, `/transcripts/${id}/audio/tracks`)).status).toBe(404);
    expect((await get(alice, `/transcripts/${id}/audio?speaker=nobody`)).status).toBe(404);
    const manual = await fetch(`${system.url}/api/transcripts/manual`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Typed', session_date: '2026-06-02', transcript: 'MATT: hello' }),
    });
    const typed = ((await manual.json()) as { id: string }).id;
    expect(await (await get(alice, `/transcripts/${typed}/audio/tracks`)).json()).toEqual([]);
    expect((await get(alice, `/transcripts/${typed}/audio`)).status).toBe(404);
    expect((await get(alice, `/transcripts/not-an-id/audio`)).status).toBe(404);
  });

  it('deleting the session deletes its recording', async () => {
    const del = await fetch(`${system.url}/api/transcripts/${second}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${alice}` },
    });
    expect(del.status).toBe(200);
    expect((await get(alice, `/transcripts/${second}/audio`)).status).toBe(404);
    const blobs = system.platform?.bus.blobs;
    if (blobs) expect(await blobs.info(SESSION_AUDIO_BUCKET, second)).toBeNull();
  });

  it("shows the owner the storage their recordings take, and admins everyone's", async () => {
    const settings = await get(alice, '/users/audio-settings');
    expect(await settings.json()).toEqual({
      retention_days: null,
      used_bytes: audio.length,
      sessions_with_audio: 1,
    });
    expect(await (await get(bob, '/users/audio-settings')).json()).toMatchObject({
      used_bytes: 0,
      sessions_with_audio: 0,
    });
    expect((await get(bob, '/admin/audio-usage')).status).toBe(403);
    await system.platform!.db.query(`update auth.users set is_admin = true where username = 'bob'`);
    const admin = (await localSignIn(system.url, 'bob')).cookie;
    expect(await (await get(admin, '/admin/audio-usage')).json()).toEqual({
      used_bytes: audio.length,
      sessions_with_audio: 1,
      owners: 1,
    });
  });

  it('a retention refuses bad values, and a recording past it is deleted as it is set', async () => {
    const put = (body: unknown) =>
      fetch(`${system.url}/api/users/audio-settings`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    for (const bad of [{ retention_days: 0 }, { retention_days: 36_501 }, { retention_days: 1.5 }, {}]) {
      expect((await put(bad)).status, JSON.stringify(bad)).toBe(400);
    }
    // The recording was kept 40 days ago, by the clock of the database.
    await system.platform!.db.query(
      `update transcript.transcripts set kept_audio_at = now() - interval '40 days' where id = $1`,
      [id],
    );
    const kept = await put({ retention_days: 60 });
    expect(await kept.json()).toMatchObject({ retention_days: 60, used_bytes: audio.length });
    expect((await get(alice, `/transcripts/${id}/audio`)).status).toBe(200);
    const shorter = await put({ retention_days: 30 });
    expect(await shorter.json()).toEqual({ retention_days: 30, used_bytes: 0, sessions_with_audio: 0 });
    expect((await get(alice, `/transcripts/${id}/audio`)).status).toBe(404);
    const blobs = system.platform?.bus.blobs;
    if (blobs) expect(await blobs.info(SESSION_AUDIO_BUCKET, id)).toBeNull();
    // The transcript itself stays.
    expect((await get(alice, `/transcripts/${id}`)).status).toBe(200);
    expect(await (await put({ retention_days: null })).json()).toMatchObject({ retention_days: null });
  });
});
