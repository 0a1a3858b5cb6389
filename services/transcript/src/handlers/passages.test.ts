import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServiceError } from '@chronicler/kit';
import { openServiceTestbed, type ServiceTestbed } from '@chronicler/kit/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { homeGameTranscript } from '../../../../tests/eval/home-game.ts';
import { PassageStore } from '../db/passage-store.ts';
import { passages } from './passages.ts';

const migrationsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../migrations');

let bed: ServiceTestbed;
let find: ReturnType<typeof passages>;
const owner = randomUUID();
const group = randomUUID();
const home = homeGameTranscript();
let homeId: string;
let otherId: string;

async function insert(o: string, name: string, content: string, groupId: string | null, date: string) {
  const [row] = await bed.db.query<{ id: string }>(
    `insert into transcript.transcripts (owner_id, group_id, name, session_timestamp, content)
     values ($1, $2, $3, $4, $5) returning id`,
    [o, groupId, name, date, content],
  );
  return String(row!.id);
}

beforeAll(async () => {
  bed = await openServiceTestbed({ schema: 'transcript', migrationsDir });
  find = passages(new PassageStore(bed.db, bed.schema));
  homeId = await insert(owner, 'Whisperwood', home.transcript, group, '2026-01-01T19:00:00Z');
  otherId = await insert(
    owner,
    'The barrow',
    [
      'GM: You reach the Barrow of Seven Stones at the new moon.',
      '[00:00:30] GM: The door opens. Tobin wakes far away in Millbrook.',
      '[00:01:10] Sam: We give the crown back to the Queen Under the Hill.',
    ].join('\n'),
    group,
    '2026-01-08T19:00:00Z',
  );
});
afterAll(async () => {
  await bed?.close();
});

describe('svc.transcript.passages', () => {
  it('quotes the best passages of a session, the answering line with what follows it, each linked to its moment', async () => {
    const found = await find({
      owner_id: owner,
      transcript_id: homeId,
      q: 'What is the mule called?',
      limit: 4,
      max_chars: 12_000,
    });
    expect(found.whole).toBe(false);
    expect(found.sessions).toEqual([
      {
        transcript_id: homeId,
        name: 'Whisperwood',
        session_timestamp: '2026-01-01T19:00:00.000Z',
        group_id: group,
      },
    ]);
    expect(found.passages.length).toBeGreaterThan(0);
    expect(found.passages.length).toBeLessThanOrEqual(4);
    const scores = found.passages.map((p) => p.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    const turnip = found.passages.find((p) => p.lines[p.hit]!.text.includes('Turnip'))!;
    const hit = turnip.lines[turnip.hit]!;
    expect(hit).toMatchObject({ line: 54, speaker: 'GM' });
    expect(turnip.link).toBe(`/sessions/${homeId}#t=${home.times[54]}`);
    // The line before it and the two after it, in order.
    expect(turnip.lines.map((l) => l.line)).toEqual([53, 54, 55, 56]);
  });

  it('hands a question asked back at the table to the reply that follows it', async () => {
    const found = await find({
      owner_id: owner,
      transcript_id: homeId,
      q: 'Where is the door of the Queen Under the Hill?',
      limit: 4,
      max_chars: 12_000,
    });
    const first = found.passages[0]!;
    expect(first.lines[first.hit]!.text).toMatch(/^The stag says her door is beneath the Barrow/);
  });

  it('searches every session of a campaign, and links an untimed line by its place', async () => {
    const found = await find({
      owner_id: owner,
      group_id: group,
      q: 'Seven Stones new moon',
      limit: 4,
      max_chars: 12_000,
    });
    expect(found.sessions.map((s) => s.name)).toEqual(['Whisperwood', 'The barrow']);
    const barrow = found.passages.find((p) => p.transcript_id === otherId)!;
    expect(barrow.lines[barrow.hit]).toMatchObject({ line: 0, seconds: null });
    expect(barrow.link).toBe(`/sessions/${otherId}#line=0`);
    expect(found.passages.some((p) => p.transcript_id === homeId)).toBe(true);
  });

  it('answers a session that fits whole, and who talks most when asked', async () => {
    const found = await find({
      owner_id: owner,
      transcript_id: homeId,
      q: 'Who is the game master?',
      limit: 4,
      max_chars: 12_000,
      whole_within: 12_000,
      speakers: true,
    });
    expect(found.whole).toBe(true);
    expect(found.passages).toHaveLength(1);
    expect(found.passages[0]!.lines).toHaveLength(home.times.length);
    expect(found.speakers[0]).toMatchObject({ speaker: 'GM' });
    expect(found.speakers[0]!.share).toBeGreaterThan(0.5);
  });

  it('finds the lines of a session still being recorded, as they are stored', async () => {
    const [live] = await bed.db.query<{ id: string }>(
      `insert into transcript.transcripts (owner_id, name, status, source) values ($1, 'Live', 'active', 'live') returning id`,
      [owner],
    );
    const id = String(live!.id);
    const line = (seq: number, text: string, at: number) =>
      bed.db.query(
        `insert into transcript.transcript_lines
           (transcript_id, seq, utterance_id, speaker_tag, speaker_name, text, start_seconds, end_seconds)
         values ($1, $2, $3, '"1"', 'Matt', $4, $5::float8, $5::float8 + 2)`,
        [id, seq, `u${seq}`, text, at],
      );
    await line(1, 'You arrive at the gates of Emon.', 5);
    await line(2, 'The guard asks for the password: it is "lanterns".', 65);
    const found = await find({
      owner_id: owner,
      transcript_id: id,
      q: 'What is the password?',
      limit: 4,
      max_chars: 2_000,
    });
    const first = found.passages[0]!;
    expect(first.lines[first.hit]).toMatchObject({ seconds: 65, speaker: 'Matt' });
    expect(first.link).toBe(`/sessions/${id}#t=00:01:05`);
  });

  it('shows speakers by their display names', async () => {
    const named = await insert(
      owner,
      'Labels',
      '[00:00:05] 1: The innkeeper is called Bram.',
      null,
      '2026-02-01T00:00:00Z',
    );
    await bed.db.query(
      `insert into transcript.speaker_names (transcript_id, label, name, character) values ($1, 'Speaker 1', 'Dana', '')`,
      [named],
    );
    const found = await find({
      owner_id: owner,
      transcript_id: named,
      q: 'innkeeper',
      limit: 4,
      max_chars: 1_000,
    });
    expect(found.passages[0]!.lines[0]).toMatchObject({
      speaker: 'Dana',
      text: 'The innkeeper is called Bram.',
    });
  });

  it("answers not found for another owner's session and nothing for another owner's campaign", async () => {
    const stranger = randomUUID();
    const err = await find({
      owner_id: stranger,
      transcript_id: homeId,
      q: 'mule',
      limit: 4,
      max_chars: 1_000,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ code: 'not_found' });
    expect(
      await find({ owner_id: stranger, group_id: group, q: 'mule', limit: 4, max_chars: 1_000 }),
    ).toEqual({
      sessions: [],
      passages: [],
      whole: false,
      speakers: [],
    });
    const both = await find({ owner_id: owner, q: 'mule', limit: 4, max_chars: 1_000 }).catch(
      (e: unknown) => e,
    );
    expect(both).toMatchObject({ code: 'bad_request' });
  });
});
