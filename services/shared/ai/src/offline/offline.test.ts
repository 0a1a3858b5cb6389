import { isOfflineAiText, OFFLINE_AI_MARKER, retrievalQuery, RUNS_THE_GAME } from '@chronicler/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPassageBed, type PassageBed } from '../../../../../tests/support/passage-bed.ts';
import { homeGameTranscript } from '../../../../../tests/eval/home-game.ts';
import { crd3Transcript } from '../../../../../tests/support/crd3.ts';
import { answerText } from './answer.ts';
import { campaignDigest } from './campaign.ts';
import { OFFLINE_RETRIEVAL_PLAN } from './engine.ts';
import { sessionDigest } from './digest.ts';
import { planText, SUGGESTIONS_REQUEST } from './plan.ts';

const LINK = /\[\[(\d\d:\d\d:\d\d)\]\]\(\/sessions\/s1#t=\1\)/g;
const section = (text: string, heading: string) =>
  text.split(`### ${heading}\n`)[1]!.split('\n### ')[0]!.trim();
let bed: PassageBed;
beforeAll(async () => {
  bed = await openPassageBed();
});
afterAll(async () => {
  await bed?.close();
});

/** The offline answer from what the transcript service finds in the session for the question. */
async function ask(
  transcript: string,
  question: string,
  history: { role: 'user'; content: string }[] = [],
): Promise<string> {
  const id = await bed.add({ name: 'S', content: transcript });
  const earlier = history.map((m) => m.content);
  const found = await bed.find({
    q: retrievalQuery(question, earlier),
    transcript_id: id,
    ...OFFLINE_RETRIEVAL_PLAN_REQUEST,
    speakers: RUNS_THE_GAME.test(question),
  });
  return answerText({ name: 'S', scope: 'session', found, history, question });
}
const OFFLINE_RETRIEVAL_PLAN_REQUEST = {
  limit: OFFLINE_RETRIEVAL_PLAN.limit,
  max_chars: OFFLINE_RETRIEVAL_PLAN.maxChars,
};
/** The quoted passages of an offline answer, best first. */
const passages = (reply: string) => reply.split(/\n\n(?=> )/).slice(1);

describe('the offline digest and retrieval on three styles of transcript', () => {
  it('a CRD3 episode: quoted key moments over the whole session with time links, the party kept out of people', async () => {
    const transcript = crd3Transcript('C1E001', { timed: true, secondsPerTurn: 5 });
    const digest = sessionDigest({ id: 's1', name: 'E1', transcript });
    expect(digest.startsWith(OFFLINE_AI_MARKER)).toBe(true);
    expect(digest.match(/^### .+$/gm)).toEqual([
      '### Key moments',
      '### People',
      '### Places',
      '### Open questions',
    ]);
    const moments = section(digest, 'Key moments').split('\n');
    expect(moments.length).toBeGreaterThanOrEqual(8);
    const times = moments.map((m) => [...m.matchAll(LINK)][0]![1]!);
    // In order, reaching the session's last stretch.
    expect([...times].sort()).toEqual(times);
    const lines = transcript.split('\n');
    expect(times.at(-1)! >= lines[Math.floor(lines.length * 0.85)]!.slice(1, 9)).toBe(true);
    // Every moment is a line of the transcript as said, with its speaker.
    for (const m of moments) {
      const [, said, speaker, time] = /^- "(.+?)(?: …)?" \(([^)]+)\) \[\[(\S+)\]\]/.exec(m)!;
      expect(transcript).toContain(`[${time}] ${speaker}: ${said!.replace(/”/g, '"').slice(0, 60)}`);
    }
    expect(section(digest, 'People')).toMatch(/^The party: .*Grog \(TRAVIS\)/);
    expect(section(digest, 'People')).not.toMatch(/\*\*(Grog|Pike|Vex'ahlia)\*\*/);
    expect(digest.length).toBeLessThanOrEqual(10_000);

    const reply = await ask(transcript, "What is the name of Vex'ahlia's bear?");
    expect(isOfflineAiText(reply)).toBe(true);
    expect(passages(reply).length).toBeGreaterThan(0);
    expect(passages(reply).some((p) => p.includes('Trinket'))).toBe(true);
  });

  it('a home game with GM: and first names: the people and places it names, its open questions, answers quoted', async () => {
    const { transcript, times } = homeGameTranscript();
    const digest = sessionDigest({ id: 's1', name: 'Whisperwood', transcript });
    const people = section(digest, 'People');
    for (const name of ['Tobin', 'Grub', 'Mother Sallow']) expect(people).toContain(`**${name}**`);
    expect(people).not.toMatch(/\*\*(Sam|Priya|Jonah|Alex|GM)\*\*/);
    expect(section(digest, 'Places')).toMatch(/\*\*Millbrook\*\*[\s\S]*\*\*Whisperwood\*\*/);
    expect(section(digest, 'Open questions')).toContain(`"Who's Mother Sallow?" (Sam) [[${times[49]}]]`);

    const mule = passages(await ask(transcript, 'What is the mule called?'));
    expect(mule.join('\n')).toContain(
      `[${times[54]}] GM: Hedda gives you the forty silver and the mule. The mule's name is Turnip.`,
    );
    // The answering line comes first in its passage, before what followed it.
    const miller = passages(await ask(transcript, 'Who runs the mill?'));
    expect(miller[0]).toMatch(new RegExp(`^> \\[${times[2]}\\] GM: The village is quiet`));
    expect(miller[0]).toContain(`[${times[3]}] Priya: Does she look scared?`);
    expect(miller[0]).not.toContain(`[${times[1]}]`);
    // A line that asks back what was asked is answered by the next line, quoted first.
    const door = passages(await ask(transcript, 'Where is the door of the Queen Under the Hill?'));
    expect(door[0]).toMatch(new RegExp(`^> \\[${times[39]}\\] GM: The stag says her door is beneath`));
    const gm = await ask(transcript, 'Who is the game master?');
    expect(gm).toMatch(/GM says \d+% of the words in this session/);
    // A follow-up that names nothing borrows the previous question's words.
    const followUp = await ask(transcript, 'And then?', [
      { role: 'user', content: 'What was the toll to cross the bridge?' },
    ]);
    expect(followUp).toContain('the toll is one song or one finger');
  });

  it('a transcript with Speaker 1 / Speaker 2 labels only', async () => {
    const said = [
      'Welcome back. You stand at the gates of Karsk, the iron city, and the guard captain Ilsa Brand blocks your way.',
      'I show her the letter from the duke.',
      'Ilsa Brand reads it and frowns. She says the duke has been dead for a month.',
      'Then who wrote the letter?',
      'She does not know. She lets you into Karsk but her men follow you to the market.',
      'We lose them in the crowd and head for the temple.',
      'At the temple a priest named Oren gives you a key to the crypt below Karsk.',
      'I take the key. What is in the crypt?',
      'Oren only says that Ilsa Brand must never learn of it.',
      'Who is Oren working for?',
    ];
    const transcript = said.map((t, i) => `[00:0${i}:00] ${(i % 2) + 1}: ${t}`).join('\n');
    const digest = sessionDigest({ id: 's1', name: 'Karsk', transcript });
    expect(digest).toContain('(Speaker 1) [[00:00:00]](/sessions/s1#t=00:00:00)');
    expect(section(digest, 'People')).toContain('**Ilsa Brand**');
    expect(section(digest, 'People')).toContain('**Oren**');
    expect(section(digest, 'Places')).toContain('**Karsk**');
    expect(section(digest, 'Open questions')).toContain('"Who is Oren working for?" (Speaker 2)');
    const key = passages(await ask(transcript, 'Who gave us the key to the crypt?'));
    expect(key.join('\n')).toContain(
      '[00:06:00] Speaker 1: At the temple a priest named Oren gives you a key',
    );
  });
});

describe('offline campaign digests and planning', () => {
  const s1 = sessionDigest({ id: 'a', name: 'One', transcript: homeGameTranscript().transcript });
  const sessions = [{ id: 'a', name: 'One', date: '2026-01-01T00:00:00.000Z', summary: s1 }];
  const characters = [{ speaker: 'Priya', character: 'Brakka' }];

  it('builds the campaign digest from the session summaries: a linked line per session, the party from the map', () => {
    const text = campaignDigest({ name: 'C', sessions, characters });
    expect(text.startsWith(OFFLINE_AI_MARKER)).toBe(true);
    expect(text).toContain('- [One](/sessions/a) (2026-01-01): "');
    expect(text).toContain('### The party\n- **Brakka** (Priya)');
    expect(section(text, 'People')).toContain('**Grub**: in One');
    expect(section(text, 'Open threads')).toContain("Who's Mother Sallow?");
  });

  it('suggests from open threads, and says what it cannot do instead of touching the document', () => {
    const input = { groupName: 'C', sessions, campaignSummary: '', history: [], characters };
    const ideas = planText({ ...input, message: SUGGESTIONS_REQUEST, editor: null });
    expect(ideas).toContain("Who's Mother Sallow?");
    expect(ideas).toContain('(from One)');
    const rewrite = planText({
      ...input,
      message: 'Make this more menacing',
      editor: {
        content: 'The ogres guard the bridge',
        selection: { start: 4, end: 9 },
        selectedText: 'ogres',
      },
    });
    expect(rewrite).toContain('cannot write or change the planning document; nothing in it was changed');
    expect(() => JSON.parse(rewrite)).toThrow();
    const editor = { content: 'The ogres guard the bridge', selection: null, selectedText: '' };
    const draft = planText({ ...input, message: 'Draft the ambush at the bridge', editor });
    expect(draft).toContain('cannot write or change the planning document');
    // A question asks for no change: it is answered without the note.
    const question = planText({ ...input, message: 'Who is Mother Sallow?', editor });
    expect(question).not.toContain('planning document');
    expect(question).toContain('Mother Sallow');
  });
});
