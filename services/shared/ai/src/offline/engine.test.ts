import {
  aiRequestRecordedEvent,
  USAGE_EVENTS_STREAM,
  usageEventsStream,
  type AiRequestRecorded,
} from '@chronicler/contracts';
import {
  aiRequests,
  aiTokens,
  createBus,
  createLogger,
  MemoryCoordination,
  type Bus,
  type Consumer,
} from '@chronicler/kit';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AiConfig } from '../config.ts';
import {
  AiRateLimitedError,
  type AiRequestContext,
  type EditorContext,
  type SessionDigest,
} from '../engine.ts';
import { OfflineEngine } from './engine.ts';

// Loaded when a test needs it: the fixtures module brings the whole system's modules with it.
const crd3 = () => import('../../../../../tests/support/crd3.ts');

const config: AiConfig = {
  OPENAI_CONTEXT_TOKENS: 128_000,
  OPENAI_TIMEOUT_MS: 10_000,
  OPENAI_MAX_RETRIES: 2,
  AI_PRICE_INPUT_PER_MILLION_USD: 0.1,
  AI_PRICE_OUTPUT_PER_MILLION_USD: 0.4,
  AI_RATE_LIMIT_PER_MINUTE: 1000,
  AI_OFFLINE_THREADS: 1,
};

const OFFLINE_FIRST_LINE = /^_Offline [^\n]*\(no AI model is configured\)[^\n]*_$/;
const QUOTE = /^> \[(\d\d:\d\d:\d\d)\] ([^:]+): (.+)$/;

describe('OfflineEngine', () => {
  let bus: Bus;
  let consumer: Consumer;
  let records: AiRequestRecorded[];
  let recordWaiters: (() => void)[];
  let coord: MemoryCoordination;
  let engine: OfflineEngine;
  const logger = createLogger('ai-offline-test', { level: 'silent' });

  beforeAll(async () => {
    // In cluster mode the usage records go through NATS JetStream, as in production.
    bus = await createBus({
      prefix: `aioff${randomUUID().slice(0, 8)}`,
      name: 'ai-offline-test',
      natsUrl: process.env.CHRONICLER_TEST_MODE === 'cluster' ? process.env.NATS_URL : undefined,
    });
    await bus.ensureStream(usageEventsStream);
    records = [];
    recordWaiters = [];
    consumer = await bus.consume(
      {
        stream: USAGE_EVENTS_STREAM,
        durable: 'ai-offline-test',
        filterSubject: aiRequestRecordedEvent.subject,
      },
      async (payload) => {
        records.push(payload as AiRequestRecorded);
        for (const w of recordWaiters.splice(0)) w();
      },
    );
  });
  afterAll(async () => {
    await consumer?.stop();
    await bus?.close();
  });

  let testUser = '';
  beforeEach(() => {
    testUser = `user-${randomUUID()}`;
    coord = new MemoryCoordination();
    engine = new OfflineEngine(config, { bus, coord, logger });
  });
  afterEach(async () => {
    await coord.close();
  });

  const ctx = (type: AiRequestContext['type']): AiRequestContext => ({ userId: testUser, type });
  const newRecords = async (n: number): Promise<AiRequestRecorded[]> => {
    for (;;) {
      const mine = records.filter((r) => r.user_id === testUser);
      if (mine.length >= n) return mine;
      await new Promise<void>((resolve) => recordWaiters.push(resolve));
    }
  };

  it('is the offline kind with model offline', () => {
    expect(engine.kind).toBe('offline');
    expect(engine.model).toBe('offline');
  });

  describe('summarizeSession', () => {
    it('covers every hour of a long session in sections, leaving out the recap, with time links out of the prose', async () => {
      const { crd3Transcript } = await crd3();
      // C2E003 at 5 s a turn: about 3.75 hours, opening with announcements and a recap.
      const transcript = crd3Transcript('C2E003', { timed: true, secondsPerTurn: 5 });
      const summary = await engine.summarizeSession(ctx('session_summary'), { name: 'C2E003', transcript });
      const [first, blank] = summary.split('\n');
      expect(first).toMatch(OFFLINE_FIRST_LINE);
      expect(blank).toBe('');
      expect(summary.match(/_Offline/g)).toHaveLength(1);
      for (const heading of [
        '### What happened',
        '### People met',
        '### Places',
        '### Loot and rewards',
        '### Open threads',
      ])
        expect(summary).toContain(heading);
      const happened = summary.split('### People met')[0]!;
      const hours = new Set(
        [...happened.matchAll(/\[\[(\d\d):\d\d:\d\d\]\]\(#t=/g)].map((m) => Number(m[1])),
      );
      expect([...hours].sort()).toEqual([0, 1, 2, 3]);
      // Every cited time is a line of the transcript, and no bullet starts with a "[time] SPEAKER:" prefix.
      for (const m of summary.matchAll(/\[\[(\d\d:\d\d:\d\d)\]\]\(#t=\1\)/g))
        expect(transcript).toContain(`[${m[1]}] `);
      expect(summary).not.toMatch(/^- \[\d\d:\d\d:\d\d\] /m);
      expect(summary).not.toContain('Last we left off');
      expect(summary.length).toBeLessThan(10_000);
    });

    it('ends the story where the game master closes the game: the chat after it names nobody', async () => {
      const { crd3Transcript } = await crd3();
      // C1E005 closes with "we'll pick that up next week", then a giveaway's winner and a video game.
      const transcript = crd3Transcript('C1E005', { timed: true, secondsPerTurn: 4 });
      const summary = await engine.summarizeSession(ctx('session_summary'), { name: 'C1E005', transcript });
      const people = summary.split('### People met')[1]!.split('###')[0]!;
      expect(people).toContain('**Clarota**');
      expect(summary).not.toMatch(/\bAmy\b|Bloodborne|giveaway/);
      // A god is one of the people, not a place ("a cleric to Sarenrae", "praying up to Sarenrae").
      const c1e022 = await engine.summarizeSession(ctx('session_summary'), {
        name: 'C1E022',
        transcript: crd3Transcript('C1E022', { timed: true, secondsPerTurn: 5 }),
      });
      expect(c1e022.split('### Places')[1]!.split('###')[0]!).not.toContain('Sarenrae');
    });

    it("lists what was found or paid as loot, not information handed over or a potion's dice", async () => {
      const { crd3Transcript } = await crd3();
      const transcript = crd3Transcript('C1E005', { timed: true, secondsPerTurn: 5 });
      const summary = await engine.summarizeSession(ctx('session_summary'), { name: 'C1E005', transcript });
      const loot = summary.split('### Loot and rewards')[1]!.split('###')[0]!;
      expect(loot).toMatch(/gold/);
      expect(loot).not.toMatch(/information|secret entrance|\dd\d/);
      const people = summary.split('### People met')[1]!.split('###')[0]!;
      expect(people).not.toMatch(/Featherfall|Thorn Whip|Commune/);
    });

    it('gives a short window a sentence or two of its own text, with its moments', async () => {
      const { crd3Transcript } = await crd3();
      const transcript = crd3Transcript('C1E022', { timed: true, turns: 40 });
      const summary = await engine.summarizeSession(ctx('session_summary'), { name: 'Aramente', transcript });
      const [first, blank, prose, blank2, moments] = summary.split('\n');
      expect(first).toMatch(OFFLINE_FIRST_LINE);
      expect([blank, blank2]).toEqual(['', '']);
      expect(moments).toMatch(/^Moments: \[\[\d\d:\d\d:\d\d\]\]\(#t=/);
      const sentences = prose!.split(/(?<=[.!?…])\s+(?=[A-Z"])/).length;
      expect(sentences).toBeGreaterThanOrEqual(1);
      expect(prose!.split(/\s+/).length).toBeLessThan(140);
      expect(prose).not.toMatch(/\[\d\d:\d\d:\d\d\]/);
    });

    it('summarises a 500,000-character transcript within the summary limit', async () => {
      const { CRD3_EPISODES, crd3Transcript } = await crd3();
      const all = CRD3_EPISODES.map((e) => crd3Transcript(e, { timed: true })).join('\n');
      const transcript = all.slice(0, all.lastIndexOf('\n', 500_000));
      expect(transcript.length).toBeGreaterThan(490_000);
      const summary = await engine.summarizeSession(ctx('session_summary'), { name: 'Long', transcript });
      const items = summary
        .split('### People met')[0]!
        .split('\n')
        .filter((l) => l.startsWith('- '));
      expect(items.length).toBeGreaterThanOrEqual(10);
      for (const item of items) expect(item).toMatch(/\[\[\d\d:\d\d:\d\d\]\]\(#t=\d\d:\d\d:\d\d\)$/);
      expect(summary.length).toBeLessThan(10_000);
    });

    it('says so when the transcript has nothing to summarise', async () => {
      const summary = await engine.summarizeSession(ctx('session_summary'), {
        name: 'Empty',
        transcript: '\n \n',
      });
      expect(summary.split('\n')[0]).toMatch(OFFLINE_FIRST_LINE);
      expect(summary).toContain('The transcript of Empty has no sentences to summarise.');
    });

    it('summarises a transcript of a few short lines with what is said in them', async () => {
      const summary = await engine.summarizeSession(ctx('session_summary'), {
        name: 'Short',
        transcript: '[00:00:01] MATT: Hello, dragon.\n[00:00:03] SAM: Okay.',
      });
      expect(summary).toContain('Hello, dragon.');
      expect(summary).not.toContain('Okay.');
      expect(summary).toContain('[[00:00:01]](#t=00:00:01)');
    });

    it("tells a game master's lines of their own of the party, who is known from the campaign", async () => {
      const input = {
        name: 'Recap',
        transcript:
          '[00:00:01] MATT: You push forward for the rest of the day and reach the edge of the mountains.\n' +
          '[00:00:09] MATT: Keyleth, you see the portal slowly turning ahead of you in the storm.',
      };
      const summary = await engine.summarizeSession(ctx('session_summary'), {
        ...input,
        characters: [
          { speaker: 'MARISHA', character: 'Keyleth' },
          { speaker: 'LAURA', character: 'Vex' },
        ],
      });
      expect(summary).toContain('They push forward for the rest of the day');
      expect(summary).toContain('Keyleth sees the portal slowly turning ahead of them');
      // Without the campaign, a lone speaker may be anyone: their words stay as they were.
      const alone = await engine.summarizeSession(ctx('session_summary'), input);
      expect(alone).toContain('You push forward');
    });
  });

  describe('summarizeCampaign', () => {
    it('gives an overview of recurring names and one bullet per session, oldest first', async () => {
      const sessions: SessionDigest[] = [
        {
          name: 'The Journey Home',
          date: '2024-03-10T19:00:00Z',
          summary:
            '- [00:10:00] MATT: The Mighty Nein return to Zadash with the Gentleman. Jester misses Molly.',
        },
        { name: 'Nothing yet', date: '2024-03-17T19:00:00Z', summary: '' },
        {
          name: 'Arrival',
          date: '2024-03-03T19:00:00Z',
          summary:
            'The Mighty Nein meet in Trostenwald. Beau and Jester chase a toad near Zadash.\nNott steals.',
        },
      ];
      const text = await engine.summarizeCampaign(ctx('campaign_summary'), { name: 'Nein', sessions });
      const lines = text.split('\n');
      expect(lines[0]).toMatch(OFFLINE_FIRST_LINE);
      expect(text).toContain('Nein spans 3 sessions.');
      // Names typed: characters apart from places (Zadash is where people go, Jester is someone).
      expect(text).toMatch(/^- \*\*Characters:\*\* [^\n]*Jester/m);
      expect(text).toMatch(/^- \*\*Places:\*\* [^\n]*Zadash/m);
      expect(text).not.toMatch(/^- \*\*Places:\*\* [^\n]*Jester/m);
      const bullets = lines.filter(
        (l) => l.startsWith('- **') && !l.startsWith('- **Characters') && !l.startsWith('- **Places'),
      );
      expect(bullets).toEqual([
        '- **Arrival** (2024-03-03): The Mighty Nein meet in Trostenwald. Beau and Jester chase a toad near Zadash.',
        '- **The Journey Home** (2024-03-10): The Mighty Nein return to Zadash with the Gentleman. Jester misses Molly.',
        '- **Nothing yet** (2024-03-17): no summary yet.',
      ]);
    });

    it("types names as the sessions' own sections did, most sessions first", async () => {
      const offline = (happened: string, people: string[], places: string[]) =>
        [
          '### What happened',
          `- ${happened}`,
          '',
          '### People met',
          '- The party: Vex (Laura) and Grog (Travis)',
          ...people.map((p) => `- **${p}** [[00:10:00]](#t=00:10:00)`),
          '',
          '### Places',
          ...(places.length
            ? places.map((p) => `- **${p}** [[00:20:00]](#t=00:20:00)`)
            : ['- No named places found.']),
        ].join('\n');
      const sessions: SessionDigest[] = [
        {
          name: 'Into the Mines',
          date: '2024-05-01T19:00:00Z',
          // Read alone, "talks to Kraghammer" would make the city a person.
          summary: offline(
            'Vex talks to Kraghammer about the mines, and Nostoc waits.',
            ['Nostoc'],
            ['Kraghammer'],
          ),
        },
        {
          name: 'The Duergar',
          date: '2024-05-08T19:00:00Z',
          summary: offline(
            'Clarota leads the way and Nostoc sends word from Kraghammer.',
            ['Clarota', 'Nostoc'],
            ['Kraghammer'],
          ),
        },
      ];
      const party = [
        { speaker: 'LAURA', character: 'Vex' },
        { speaker: 'TRAVIS', character: 'Grog' },
      ];
      const text = await engine.summarizeCampaign(ctx('campaign_summary'), {
        name: 'VM',
        sessions,
        characters: party,
      });
      expect(text).toContain('- **Characters:** Nostoc and Clarota');
      expect(text).toContain('- **Places:** Kraghammer');
    });

    it("gives a session's line from its story, not a rule or a question at the table", async () => {
      const sessions: SessionDigest[] = [
        {
          name: 'The Hoard',
          date: '2024-04-01T19:00:00Z',
          summary: [
            '### What happened',
            '- Do keep in mind, the Bag of Holding can hold upwards of 500 pounds. Percy, make a tinkering check.',
            '- Can Vex carry the gold? The party hauls the dragon’s hoard out of the lair near Westruun.',
          ].join('\n'),
        },
      ];
      const text = await engine.summarizeCampaign(ctx('campaign_summary'), { name: 'VM', sessions });
      expect(text).toContain(
        '- **The Hoard** (2024-04-01): The party hauls the dragon’s hoard out of the lair',
      );
    });
  });

  describe('answer', () => {
    it('quotes the transcript lines that contain the question terms, with their times and speakers', async () => {
      const { crd3Transcript } = await crd3();
      const transcript = crd3Transcript('C1E001', { timed: true });
      const text = await engine.answer(ctx('chat'), {
        transcriptName: 'Arrival at Kraghammer',
        transcript,
        history: [],
        question: 'Where was Lady Kima staying?',
      });
      const lines = text.split('\n');
      expect(lines[0]).toMatch(OFFLINE_FIRST_LINE);
      expect(lines[2]).toMatch(
        /^The line of Arrival at Kraghammer that best answers it, at \[\d\d:\d\d:\d\d\]:$/,
      );
      const quotes = lines.filter((l) => l.startsWith('> '));
      expect(quotes.length).toBeGreaterThan(0);
      const transcriptLines = transcript.split('\n');
      for (const q of quotes) {
        const [, time, speaker, quoted] = QUOTE.exec(q)!;
        const source = transcriptLines.find((l) =>
          l.startsWith(`[${time}] ${speaker!.replace(/ \(.*\)$/, '')}: `),
        );
        expect(source, q).toBeDefined();
        for (const part of quoted!
          .split('…')
          .map((p) => p.trim())
          .filter(Boolean))
          expect(source).toContain(part);
      }
      // The answer comes first, and its time is the one the intro cites.
      expect(lines[4]).toContain('That was where Lady Kima was staying.');
      expect(lines[2]).toContain(`[${QUOTE.exec(lines[4]!)![1]}]`);
    });

    it('takes a follow-up without terms of its own as being about the previous question', async () => {
      const { crd3Transcript } = await crd3();
      const text = await engine.answer(ctx('chat'), {
        transcriptName: 'E1',
        transcript: crd3Transcript('C1E001', { timed: true }),
        history: [
          { role: 'user', content: 'Who is Nostoc?' },
          { role: 'assistant', content: 'Nostoc Greyspine is…' },
        ],
        question: 'And what else?',
      });
      const quotes = text.split('\n').filter((l) => l.startsWith('> '));
      expect(quotes.length).toBeGreaterThan(0);
      // The answer (the first quote) is about Nostoc.
      expect(quotes[0]).toMatch(/nostoc/i);
    });

    it('says when nothing matches and suggests rephrasing', async () => {
      const { crd3Transcript } = await crd3();
      const text = await engine.answer(ctx('chat'), {
        transcriptName: 'E1',
        transcript: crd3Transcript('C1E001', { timed: true, maxChars: 20_000 }),
        history: [],
        question: 'What about the xylophone quasar?',
      });
      expect(text.split('\n')[0]).toMatch(OFFLINE_FIRST_LINE);
      expect(text).toContain("I couldn't find anything in E1 that matches your question.");
      expect(text).toContain('Try rephrasing');
      expect(text).not.toContain('> ');
    });

    it('answers the ADVENTURE request with names, places and three hooks from the transcript', async () => {
      const { crd3Transcript } = await crd3();
      const transcript = crd3Transcript('C1E001', { timed: true });
      const text = await engine.answer(ctx('chat'), {
        transcriptName: 'E1',
        transcript,
        history: [],
        question: 'ADVENTURE! Generate emergency adventure content for my next session, quickly.',
      });
      const lines = text.split('\n');
      expect(lines[0]).toMatch(OFFLINE_FIRST_LINE);
      const characters = lines.find((l) => l.startsWith('**Characters:** '))!;
      const places = lines.find((l) => l.startsWith('**Places:** '))!;
      expect(characters).toMatch(/Grog|Trinket|Scanlan/);
      expect(places).toContain('Kraghammer');
      const hooks = lines.filter((l) => /^\d\. /.test(l));
      expect(hooks).toHaveLength(3);
      for (const hook of hooks) {
        const cited = /\(\[(\d\d:\d\d:\d\d)\] ([^)]+)\)/.exec(hook);
        expect(cited, hook).not.toBeNull();
        expect(transcript).toContain(`[${cited![1]}] ${cited![2]}: `);
      }
    });
  });

  describe('plan', () => {
    const sessions: SessionDigest[] = [
      {
        name: 'Session 1',
        date: '2024-01-01T18:00:00Z',
        summary:
          'The party arrives in Kraghammer looking for Lady Kima. Nostoc Greyspine hires them to clear his mines. Nostoc promised a reward.',
      },
      {
        name: 'Session 2',
        date: '2024-01-08T18:00:00Z',
        summary:
          'Deep in the Greyspine Quarry the party fights duergar. They must find Lady Kima before the duergar reach the Underdark. Who sent the mind flayer?',
      },
    ];
    const editor = (selectedText = ''): EditorContext => ({
      content: '# Session 3\n\nThe party rests. They talk about Kima.',
      selection: selectedText ? { start: 13, end: 13 + selectedText.length } : null,
      selectedText,
    });
    const plan = (message: string, ed: EditorContext | null = editor()) =>
      engine.plan(ctx('planning'), {
        groupName: 'Vox Machina',
        sessions,
        campaignSummary: '',
        history: [],
        message,
        editor: ed,
      });

    it('replies in plain text with the open threads when not asked to write', async () => {
      const text = await plan('What is still unresolved about Lady Kima?');
      expect(() => JSON.parse(text)).toThrow();
      expect(text.split('\n')[0]).toMatch(OFFLINE_FIRST_LINE);
      expect(text).toContain(
        'They must find Lady Kima before the duergar reach the Underdark. _(Session 2)_',
      );
      expect(text).toContain('Who sent the mind flayer? _(Session 2)_');
      expect(text).toContain('Nostoc promised a reward. _(Session 1)_');
    });

    it('gives structured suggestions grounded in the threads for GENERATE SESSION SUGGESTIONS', async () => {
      const text = await plan('GENERATE SESSION SUGGESTIONS');
      expect(() => JSON.parse(text)).toThrow();
      expect(text.split('\n')[0]).toMatch(OFFLINE_FIRST_LINE);
      for (const heading of ['### Hooks', '### NPCs', '### Locations', '### Encounters']) {
        expect(text).toContain(heading);
      }
      expect(text).toMatch(/### Hooks\n1\. (?:Who sent the mind flayer\?|They must find Lady Kima)/);
      expect(text).toMatch(/- \*\*(?:Nostoc Greyspine|Lady Kima)\*\*: last seen in Session [12]/);
      expect(text).toMatch(/- \*\*(?:Kraghammer|Greyspine Quarry|Underdark)\*\*/);
    });

    it('returns JSON to append when asked to add to the document', async () => {
      const text = await plan('Add session suggestions to the document');
      const reply = JSON.parse(text) as { actionHint: string; aiContent: string };
      expect(reply.actionHint).toBe('append');
      expect(reply.aiContent).toContain('### Hooks');
      expect(reply.aiContent).toContain('offline engine');
    });

    it('returns JSON to insert at the cursor when asked to insert an outline', async () => {
      const reply = JSON.parse(await plan('Insert an outline for the next session into the doc here')) as {
        actionHint: string;
        aiContent: string;
      };
      expect(reply.actionHint).toBe('insertAtCursor');
      expect(reply.aiContent).toContain('## Next session of Vox Machina');
      expect(reply.aiContent).toContain('### Threads to pick up');
    });

    it('replaces the selection only when there is selected text', async () => {
      const selected = 'The party rests. They talk about Kima.';
      const replaced = JSON.parse(await plan('Rewrite this', editor(selected))) as {
        actionHint: string;
        aiContent: string;
      };
      expect(replaced.actionHint).toBe('replaceSelection');
      expect(replaced.aiContent).toContain('- The party rests.\n- They talk about Kima.');
      expect(replaced.aiContent).toContain('They must find Lady Kima');

      const noSelection = JSON.parse(await plan('Rewrite the document outline', editor(''))) as {
        actionHint: string;
      };
      expect(noSelection.actionHint).not.toBe('replaceSelection');
      // Without a selection, "rewrite this" says nothing about the document: a plain reply.
      const plain = await plan('Rewrite this', null);
      expect(() => JSON.parse(plain)).toThrow();
    });

    it('says there is nothing to build on without summaries', async () => {
      const text = await engine.plan(ctx('planning'), {
        groupName: 'New Group',
        sessions: [{ name: 'S1', date: '2024-01-01T00:00:00Z', summary: '' }],
        campaignSummary: '',
        history: [],
        message: 'GENERATE SESSION SUGGESTIONS',
        editor: null,
      });
      expect(text).toContain('New Group has no summarised sessions yet');
    });
  });

  describe('usage and limits', () => {
    it('publishes one usage record per request: model offline, cost 0, tokens at about 4 characters each', async () => {
      const transcript = 'MATT: The dragon lands on the tower.\nLAURA: I shoot the dragon.';
      const answer = await engine.answer(ctx('chat'), {
        transcriptName: 'T',
        transcript,
        history: [],
        question: 'dragon?',
      });
      const summary = await engine.summarizeSession(ctx('session_summary'), { name: 'T', transcript });
      const recorded = await newRecords(2);
      expect(recorded).toHaveLength(2);
      const byType = new Map(recorded.map((r) => [r.request_type, r]));
      expect(byType.get('chat')).toMatchObject({
        user_id: testUser,
        model: 'offline',
        estimated_cost_usd: 0,
        success: true,
        input_tokens: Math.ceil((transcript.length + 'dragon?'.length) / 4),
        output_tokens: Math.ceil(answer.length / 4),
      });
      expect(byType.get('session_summary')).toMatchObject({
        model: 'offline',
        estimated_cost_usd: 0,
        success: true,
        output_tokens: Math.ceil(summary.length / 4),
      });
    });

    it('counts requests and tokens in the metrics by type and model, as the records say', async () => {
      const sample = async (m: typeof aiRequests | typeof aiTokens, labels: Record<string, string>) =>
        (await m.get()).values.find((v) =>
          Object.entries(labels).every(([k, x]) => (v.labels as Record<string, unknown>)[k] === x),
        )?.value ?? 0;
      const ok = { type: 'chat', model: 'offline', outcome: 'success' };
      const prompt = { type: 'chat', model: 'offline', kind: 'prompt' };
      const before = { requests: await sample(aiRequests, ok), prompt: await sample(aiTokens, prompt) };
      const transcript = 'MATT: The dragon lands on the tower.';
      await engine.answer(ctx('chat'), { transcriptName: 'T', transcript, history: [], question: 'dragon?' });
      const [record] = await newRecords(1);
      expect(await sample(aiRequests, ok)).toBe(before.requests + 1);
      expect(await sample(aiTokens, prompt)).toBe(before.prompt + record!.input_tokens);
    });

    it('applies the per-user rate limit and records nothing for a refused request', async () => {
      const limited = new OfflineEngine({ ...config, AI_RATE_LIMIT_PER_MINUTE: 2 }, { bus, coord, logger });
      const input = { name: 'S', sessions: [] };
      await limited.summarizeCampaign(ctx('campaign_summary'), input);
      await limited.summarizeCampaign(ctx('campaign_summary'), input);
      await expect(limited.summarizeCampaign(ctx('campaign_summary'), input)).rejects.toBeInstanceOf(
        AiRateLimitedError,
      );
      expect(await newRecords(2)).toHaveLength(2);
      // Another user has a limit of their own.
      await expect(
        limited.summarizeCampaign({ userId: `other-${randomUUID()}`, type: 'campaign_summary' }, input),
      ).resolves.toContain('has no sessions yet');
    });

    it("does not count automatic summaries (a bulk import's) against the user's limit, and still records them", async () => {
      const limited = new OfflineEngine({ ...config, AI_RATE_LIMIT_PER_MINUTE: 2 }, { bus, coord, logger });
      const auto: AiRequestContext = { userId: testUser, type: 'session_summary', automatic: true };
      const input = { name: 'Imported', transcript: '[00:00:01] MATT: The dragon wakes and the party runs.' };
      for (let i = 0; i < 5; i++)
        await expect(limited.summarizeSession(auto, input)).resolves.toContain('dragon');
      expect(await newRecords(5)).toHaveLength(5);
      // The user's own requests still have their full allowance, and its end.
      await limited.summarizeSession(ctx('session_summary'), input);
      await limited.summarizeSession(ctx('session_summary'), input);
      await expect(limited.summarizeSession(ctx('session_summary'), input)).rejects.toBeInstanceOf(
        AiRateLimitedError,
      );
    });
  });
});
