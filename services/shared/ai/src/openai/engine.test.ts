import {
  aiRequestRecordedEvent,
  isOfflineAiText,
  parseTranscriptLines,
  speakerLabel,
  type ChatMessage,
  USAGE_EVENTS_STREAM,
  usageEventsStream,
  type AiRequestRecorded,
} from '@chronicler/contracts';
import { createBus, createLogger, MemoryCoordination, type Bus, type Consumer } from '@chronicler/kit';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startOpenAiPeer, peerTokens, type OpenAiPeer } from '../../../../../tests/peers/openai.ts';
import { CRD3_EPISODES, crd3Transcript } from '../../../../../tests/support/crd3.ts';
import { openPassageBed, type PassageBed } from '../../../../../tests/support/passage-bed.ts';
import type { AiConfig } from '../config.ts';
import { estimateCostUsd } from '../cost.ts';
import { createAiEngine } from '../create.ts';
import { AiRateLimitedError, AiUnavailableError, type AiRequestContext } from '../engine.ts';
import { createOpenAiClient, streamChat } from './client.ts';
import { RECAP_SECTIONS } from '../recap/render.ts';
import { OpenAiEngine } from './engine.ts';
import { CHAT_INSTRUCTIONS, PART_NOTES_INSTRUCTIONS, RECAP_INSTRUCTIONS } from './prompts.ts';

/** A session read whole, as the transcript service answers for one that fits the model. */
function wholeSession(name: string, transcript: string) {
  const lines = parseTranscriptLines(transcript).map((l, line) => ({
    line,
    seconds: l.seconds,
    speaker: speakerLabel(l.speaker),
    text: l.text,
  }));
  const at = '2026-01-01T00:00:00.000Z';
  return {
    name,
    scope: 'session' as const,
    history: [],
    found: {
      sessions: [{ transcript_id: 's', name, session_timestamp: at, group_id: '' }],
      passages: [
        {
          transcript_id: 's',
          transcript_name: name,
          session_timestamp: at,
          hit: 0,
          lines,
          link: '',
          score: 0,
        },
      ],
      whole: true,
      speakers: [],
    },
  };
}

/** A transcript of at least `chars` characters from CRD3 episodes, cut at a line boundary. */
function longTranscript(chars: number): string {
  const all = CRD3_EPISODES.map((e) => crd3Transcript(e, { timed: true })).join('\n');
  expect(all.length).toBeGreaterThanOrEqual(chars);
  return all.slice(0, all.lastIndexOf('\n', chars));
}

describe('OpenAiEngine against an OpenAI-compatible peer', () => {
  let peer: OpenAiPeer;
  let bus: Bus;
  let consumer: Consumer;
  let records: AiRequestRecorded[];
  let recordWaiters: (() => void)[];
  const logger = createLogger('ai-test', { level: 'silent' });
  let coord: MemoryCoordination;

  /** The transcript service's passage search, for the chat tests (PGlite: opened once). */
  let bed: PassageBed;

  beforeAll(async () => {
    bed = await openPassageBed();
    peer = await startOpenAiPeer();
    bus = await createBus({ prefix: `ai${randomUUID().slice(0, 8)}`, name: 'ai-test' });
    await bus.ensureStream(usageEventsStream);
    records = [];
    recordWaiters = [];
    consumer = await bus.consume(
      { stream: USAGE_EVENTS_STREAM, durable: 'ai-test', filterSubject: aiRequestRecordedEvent.subject },
      async (payload) => {
        records.push(payload as AiRequestRecorded);
        for (const w of recordWaiters.splice(0)) w();
      },
    );
  });
  afterAll(async () => {
    await bed?.close();
    await consumer?.stop();
    await bus?.close();
    await peer?.close();
  });

  // Each test asks as its own user, so records of an earlier test consumed late never count.
  let testUser = '';
  beforeEach(() => {
    testUser = `user-${randomUUID()}`;
    peer.requests.length = 0;
    peer.answers.length = 0;
    peer.failures.length = 0;
    peer.sendUsage = true;
    coord = new MemoryCoordination();
  });
  afterEach(async () => {
    await coord.close();
  });

  /** Resolves with the test user's usage records once there are `n` of them. */
  const newRecords = async (n: number, userId = testUser): Promise<AiRequestRecorded[]> => {
    for (;;) {
      const mine = records.filter((r) => r.user_id === userId);
      if (mine.length >= n) return mine;
      await new Promise<void>((resolve) => recordWaiters.push(resolve));
    }
  };

  const config = (over: Partial<AiConfig> = {}): AiConfig => ({
    OPENAI_API_KEY: peer.apiKey,
    OPENAI_BASE_URL: peer.url,
    OPENAI_MODEL: 'peer-model-1',
    OPENAI_CONTEXT_TOKENS: 128_000,
    OPENAI_TIMEOUT_MS: 10_000,
    OPENAI_MAX_RETRIES: 2,
    AI_PRICE_INPUT_PER_MILLION_USD: 0.1,
    AI_PRICE_OUTPUT_PER_MILLION_USD: 0.4,
    AI_RATE_LIMIT_PER_MINUTE: 100,
    AI_OFFLINE_THREADS: 1,
    AI_OFFLINE_NICE: 0,
    ...over,
  });
  const engineWith = (over: Partial<AiConfig> = {}) => new OpenAiEngine(config(over), { bus, coord, logger });
  const ctx = (type: AiRequestContext['type'] = 'chat', userId = testUser): AiRequestContext => ({
    userId,
    type,
  });

  it('is what createAiEngine picks when a key or base URL is set', () => {
    const engine = createAiEngine(config(), { bus, coord, logger });
    expect(engine.kind).toBe('openai');
    expect(engine.model).toBe('peer-model-1');
    expect(
      createAiEngine(config({ OPENAI_API_KEY: undefined, OPENAI_BASE_URL: undefined }), {
        bus,
        coord,
        logger,
      }).kind,
    ).toBe('offline');
  });

  const recapJson = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      story: ['The party meets Hedda at the mill.'],
      key_moments: [{ time: '00:00:10', text: 'Hedda asks for help' }],
      people: [
        { name: 'Hedda', note: 'the miller' },
        { name: 'Fjord', note: 'a party member the model listed anyway' },
      ],
      places: [{ name: 'Millbrook', note: 'the village' }],
      loot: ['forty silver'],
      threads: ['Who took the crown?'],
      quotes: [{ time: '00:00:20', speaker: 'GM', text: 'Roll for it.' }],
      ...over,
    });

  it('recaps a transcript that fits the context in one structured request, with time links and NPCs only', async () => {
    const transcript = crd3Transcript('C2E003', { timed: true, maxChars: 20_000 });
    peer.answers.push(recapJson());
    const summary = await engineWith().summarizeSession(ctx('session_summary'), {
      id: 's-1',
      name: 'Session 3',
      transcript,
      characters: [{ speaker: 'TRAVIS', character: 'Fjord' }],
    });
    expect(peer.requests).toHaveLength(1);
    const [req] = peer.requests;
    expect(req!.responseFormat).toBe('json_schema');
    expect(req!.maxTokens).toBeGreaterThan(0);
    expect(req!.messages[1]!.content).toContain(transcript);
    expect(req!.messages[1]!.content).toContain('TRAVIS: Fjord');
    for (const heading of RECAP_SECTIONS) expect(summary).toContain(heading);
    expect(summary).toContain('Hedda asks for help [[00:00:10]](/sessions/s-1#t=00:00:10)');
    expect(summary).toContain('**Hedda**: the miller');
    expect(summary).not.toContain('**Fjord**');
    const [record] = await newRecords(1);
    expect(record).toMatchObject({
      request_type: 'session_summary',
      input_tokens: req!.promptTokens,
      success: true,
    });
  });

  it.each([4_096, 6_000, 8_000])(
    'recaps a 4-hour session on a server reporting a %i-token context in several requests, none over it, keeping the map step’s times',
    async (contextTokens) => {
      peer.modelInfo = { flavour: 'vllm', contextTokens, numCtx: null, loadedContext: null };
      try {
        const transcript = crd3Transcript('C1E005', { timed: true, secondsPerTurn: 5 });
        expect(transcript.split('\n').at(-1)).toMatch(/^\[0[4-9]:/);
        const engine = engineWith({ OPENAI_CONTEXT_TOKENS: undefined });
        expect((await engine.ready()).tokens).toBe(contextTokens);
        const summary = await engine.summarizeSession(ctx('session_summary'), {
          id: 'long',
          name: 'Long one',
          transcript,
        });
        expect(peer.requests.length).toBeGreaterThan(3);
        for (const r of peer.requests) {
          expect(r.status).toBe(200);
          expect(r.overContext).toBe(false);
          expect(r.promptTokens + (r.maxTokens ?? 0)).toBeLessThanOrEqual(contextTokens);
        }
        // The map step saw every line, in order, in chunks that overlap.
        const maps = peer.requests.filter((r) => r.messages[0]!.content.startsWith(PART_NOTES_INSTRUCTIONS));
        expect(maps.length).toBeGreaterThan(2);
        const seen = maps.map((r) => r.messages[1]!.content).join('\n');
        for (const line of transcript.split('\n').filter((_, i) => i % 97 === 0))
          expect(seen).toContain(line);
        expect(
          maps.filter((r) =>
            r.messages[1]!.content.includes('(overlap, already noted with the previous part)'),
          ).length,
        ).toBeGreaterThan(1);
        // The reduce got the times the map step noted, and the recap links them.
        const reduce = peer.requests.at(-1)!;
        expect(reduce.messages[0]!.content.startsWith(RECAP_INSTRUCTIONS)).toBe(true);
        const noted = /\n- \[(\d\d:\d\d:\d\d)\] /.exec(reduce.messages[1]!.content)![1]!;
        expect(summary).toContain(`[[${noted}]](/sessions/long#t=${noted})`);
        expect(await newRecords(peer.requests.length)).toHaveLength(peer.requests.length);
      } finally {
        peer.modelInfo = { flavour: 'vllm', contextTokens: 128_000, numCtx: null, loadedContext: null };
      }
    },
  );

  it('counts a recap of many calls as one request against the per-minute limit, and each answer after it as one', async () => {
    peer.modelInfo = { flavour: 'vllm', contextTokens: 4_096, numCtx: null, loadedContext: null };
    try {
      const engine = engineWith({ OPENAI_CONTEXT_TOKENS: undefined, AI_RATE_LIMIT_PER_MINUTE: 2 });
      const transcript = crd3Transcript('C1E005', { timed: true, maxChars: 60_000 });
      const recap = await engine.summarizeSession(ctx('session_summary'), { name: 'Long', transcript });
      expect(recap).toContain('### Story');
      expect(peer.requests.length).toBeGreaterThan(2);
      const calls = peer.requests.length;
      await engine.answer(ctx(), { ...wholeSession('S', 'short'), question: 'Q?' });
      const err = await engine
        .answer(ctx(), { ...wholeSession('S', 'short'), question: 'Q?' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AiRateLimitedError);
      expect(peer.requests).toHaveLength(calls + 1);
      // Every call is still in the usage ledger.
      expect(await newRecords(calls + 1)).toHaveLength(calls + 1);
    } finally {
      peer.modelInfo = { flavour: 'vllm', contextTokens: 128_000, numCtx: null, loadedContext: null };
    }
  });

  it('repairs an answer that misses the schema, then coerces it where safe, then answers with the offline digest and says why', async () => {
    const transcript = crd3Transcript('C1E001', { timed: true, maxChars: 5_000 });
    const input = { id: 's1', name: 'S', transcript };
    const logged: Record<string, unknown>[] = [];
    const logger = createLogger('ai-test', {
      level: 'warn',
      destination: { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) },
    });
    const engine = new OpenAiEngine(config(), { bus, coord, logger });

    // Repaired: the answer and what is wrong with it go back, not the transcript.
    peer.answers.push('{"story": "not a list"', recapJson());
    const repaired = await engine.summarizeSession(ctx('session_summary'), input);
    expect(repaired).toContain('### Story\nThe party meets Hedda at the mill.');
    expect(peer.requests).toHaveLength(2);
    expect(peer.requests[1]!.messages[0]!.content).toMatch(/^The JSON below was meant to match the schema/);
    expect(peer.requests[1]!.messages[1]!.content).toContain('{"story": "not a list"');
    expect(logged).toEqual([]);

    // Coerced: a lone story where a list belongs, the other lists missing; nothing it said is lost.
    peer.requests.length = 0;
    peer.answers.push('no JSON at all', JSON.stringify({ story: 'The mill burns.', extra: 1 }));
    const coerced = await engine.summarizeSession(ctx('session_summary'), input);
    expect(coerced).toContain('### Story\nThe mill burns.');
    expect(isOfflineAiText(coerced)).toBe(false);
    expect(peer.requests).toHaveLength(2);
    expect(logged.at(-1)).toMatchObject({ level: 'warn', shape: 'session_recap' });
    expect(String(logged.at(-1)!.msg)).toContain('coerced');

    // Unreadable even so: the offline digest, with a notice, and the reason logged.
    peer.requests.length = 0;
    peer.answers.push('no JSON at all', 'still not JSON');
    const fallback = await engine.summarizeSession(ctx('session_summary'), input);
    expect(isOfflineAiText(fallback)).toBe(true);
    expect(fallback).toContain('answered in a form Chronicler could not read');
    expect(fallback).toContain('### Key moments');
    expect(peer.requests).toHaveLength(2);
    expect(logged.at(-1)).toMatchObject({
      level: 'warn',
      model: 'peer-model-1',
      shape: 'session_recap',
      reason: expect.stringContaining('not JSON'),
    });
  });

  it('falls back to json_object for a server that refuses json_schema output', async () => {
    const engine = engineWith();
    peer.failures.push({ status: 400, message: "response_format type 'json_schema' is not supported" });
    peer.answers.push(recapJson());
    const summary = await engine.summarizeSession(ctx('session_summary'), {
      name: 'S',
      transcript: '[00:00:01] GM: Hello.',
    });
    expect(summary).toContain('### Key moments');
    expect(peer.requests.map((r) => r.responseFormat)).toEqual(['json_schema', 'json_object']);
    expect(peer.requests[1]!.messages[0]!.content).toContain('"session_recap"');
  });

  it('writes a campaign recap from session recaps: the party from the map, a linked line per session', async () => {
    peer.answers.push(
      JSON.stringify({
        story: ['Fjord and friends chase the crown.'],
        people: [
          { name: 'Hedda', note: 'miller' },
          { name: 'Fjord', note: 'wrongly here' },
        ],
        places: [],
        threads: ['The new moon'],
        sessions: [{ number: 1, line: 'The mill.' }],
      }),
    );
    const text = await engineWith().summarizeCampaign(ctx('campaign_summary'), {
      name: 'Nein',
      sessions: [
        {
          id: 'abc',
          name: 'S1',
          date: '2018-01-25T00:00:00Z',
          summary: '### Story\nFjord rides to Alfield.',
        },
      ],
      characters: [{ speaker: 'TRAVIS', character: 'Fjord' }],
    });
    expect(peer.requests[0]!.messages[1]!.content).toContain(
      'Session 1: S1 (2018-01-25)\n### Story\nFjord rides to Alfield.',
    );
    expect(text).toContain('### The party\n- **Fjord** (TRAVIS)');
    expect(text).toContain('### People met\n- **Hedda**: miller\n\n');
    expect(text).toContain('- [S1](/sessions/abc) (2018-01-25): The mill.');
  });

  it('sends at most a tenth of a 500,000-character transcript for a chat turn, with a fixed prefix', async () => {
    const transcript = longTranscript(500_000);
    expect(transcript.length).toBeGreaterThan(499_000);
    const engine = engineWith();
    await engine.ready();
    {
      const id = await bed.add({ name: 'Marathon', content: transcript });
      const ask = async (question: string, history: ChatMessage[]) => {
        // What the chat service does: the engine's plan, the transcript service's passages.
        const found = await bed.findFor(engine, id, question, history);
        expect(found.whole).toBe(false);
        await engine.answer(ctx(), { name: 'Marathon', scope: 'session', found, history, question });
      };
      const history: ChatMessage[] = [
        { role: 'user', content: 'Who is Grog?' },
        { role: 'assistant', content: 'Grog is the goliath barbarian [00:01:04].' },
      ];
      await ask('What did they find in the dragon lair?', history);
      await ask('Who paid the gold to the innkeeper?', []);
    }
    expect(peer.requests).toHaveLength(2);
    for (const r of peer.requests) {
      expect(r.promptTokens).toBeLessThanOrEqual(peerTokens(transcript) / 10);
      expect(r.temperature).toBe(0.7);
      expect(r.messages[0]!.role).toBe('system');
      expect(r.messages[0]!.content.startsWith(`${CHAT_INSTRUCTIONS}\n\nSession: Marathon\n\n`)).toBe(true);
      expect(r.messages.at(-1)!.role).toBe('user');
    }
    const [first, second] = peer.requests;
    expect(first!.messages.slice(1).map((m) => m.content)).toEqual([
      'Who is Grog?',
      'Grog is the goliath barbarian [00:01:04].',
      'What did they find in the dragon lair?',
    ]);
    // The passages are transcript lines with their times, chosen for the question.
    const passages = first!.messages[0]!.content.split('\n').filter((l) => /^\[\d\d:\d\d:\d\d\] /.test(l));
    expect(passages.length).toBeGreaterThan(10);
    for (const line of passages) expect(transcript).toContain(line);
    expect(first!.messages[0]!.content.toLowerCase()).toContain('dragon');
    expect(second!.messages[0]!.content).not.toBe(first!.messages[0]!.content);
  });

  it('sends the whole transcript when it is small, and the temperature asked for', async () => {
    const transcript = crd3Transcript('C1E022', { timed: true, maxChars: 8_000 });
    await engineWith().answer(ctx(), {
      ...wholeSession('Short', transcript),
      question: 'Who spoke first?',
      temperature: 0.2,
    });
    const [req] = peer.requests;
    expect(req!.temperature).toBe(0.2);
    expect(req!.messages[0]!.content).toBe(
      `${CHAT_INSTRUCTIONS}\n\nSession: Short\n\nTranscript:\n${transcript}`,
    );
  });

  it('streams an answer as deltas and records the usage the server reports', async () => {
    peer.answers.push('Grog drank the whole barrel [00:12:00] and then slept.');
    const engine = engineWith();
    const deltas: string[] = [];
    const stream = engine.streamAnswer(ctx(), {
      ...wholeSession('S', '[00:12:00] Matt: Grog drinks.'),
      question: 'What did Grog do?',
    });
    let next = await stream.next();
    while (!next.done) {
      deltas.push(next.value);
      next = await stream.next();
    }
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe('Grog drank the whole barrel [00:12:00] and then slept.');
    expect(next.value).toBe(deltas.join(''));
    expect(peer.requests[0]!.stream).toBe(true);
    const [record] = await newRecords(1);
    expect(record).toMatchObject({
      input_tokens: peer.requests[0]!.promptTokens,
      output_tokens: peerTokens('Grog drank the whole barrel [00:12:00] and then slept.'),
      success: true,
    });
  });

  it('closes the stream and records the request when the reader stops early', async () => {
    peer.answers.push('alpha beta gamma delta epsilon');
    const input = { ...wholeSession('S', 'short'), question: 'Q?' };
    for await (const delta of engineWith().streamAnswer(ctx(), input)) {
      expect(delta).toBe('alpha ');
      break;
    }
    const [record] = await newRecords(1);
    expect(record).toMatchObject({ success: false, output_tokens: 2 });
  });

  it('streams through the low-level client, estimating usage when the server sends none', async () => {
    peer.sendUsage = false;
    peer.answers.push('one two three four');
    const client = createOpenAiClient(config());
    const messages = [{ role: 'user' as const, content: 'x'.repeat(400) }];
    const stream = streamChat(client, { model: 'peer-model-1', messages });
    const deltas: string[] = [];
    let next = await stream.next();
    while (!next.done) {
      deltas.push(next.value);
      next = await stream.next();
    }
    expect(deltas).toEqual(['one ', 'two ', 'three ', 'four']);
    expect(next.value).toEqual({
      text: 'one two three four',
      inputTokens: 104,
      outputTokens: 5,
      usageReported: false,
    });
  });

  it('asks for JSON when planning with the editor, and returns the action or the reply', async () => {
    const engine = engineWith();
    const input = {
      groupName: 'Vox Machina',
      sessions: [{ name: 'S1', date: '2026-01-05T19:00:00.000Z', summary: 'They met.' }],
      campaignSummary: 'Heroes of Emon.',
      history: [],
      message: 'Add three plot hooks',
      editor: { content: '# Plan\n', selection: null, selectedText: '' },
    };
    peer.answers.push('{"actionHint":"insertAtCursor","aiContent":"- A stolen map"}');
    expect(JSON.parse(await engine.plan(ctx('planning'), input))).toEqual({
      actionHint: 'insertAtCursor',
      aiContent: '- A stolen map',
    });
    peer.answers.push('{"reply":"Try a heist."}');
    expect(await engine.plan(ctx('planning'), input)).toBe('Try a heist.');
    peer.answers.push('{"actionHint":"sideways","aiContent":"Hooks"}');
    expect(JSON.parse(await engine.plan(ctx('planning'), input))).toEqual({
      actionHint: 'append',
      aiContent: 'Hooks',
    });
    expect(peer.requests.map((r) => r.responseFormat)).toEqual(['json_object', 'json_object', 'json_object']);
    expect(peer.requests[0]!.messages[0]!.content).toContain('# Plan');

    peer.answers.push('Plain idea.');
    expect(await engine.plan(ctx('planning'), { ...input, editor: null })).toBe('Plain idea.');
    expect(peer.requests[3]!.responseFormat).toBeUndefined();
  });

  it('keeps the newest sessions when a long campaign does not fit the context', async () => {
    const engine = engineWith({ OPENAI_CONTEXT_TOKENS: 4_000 });
    const sessions = Array.from({ length: 12 }, (_, i) => ({
      name: `Session ${i + 1}`,
      date: `2026-01-${String(i + 1).padStart(2, '0')}T19:00:00.000Z`,
      summary: `Events of session ${i + 1}. `.repeat(100),
    }));
    await engine.plan(ctx('planning'), {
      groupName: 'G',
      sessions,
      campaignSummary: 'So far.',
      history: [],
      message: 'Ideas?',
      editor: null,
    });
    const [req] = peer.requests;
    expect(req!.promptTokens).toBeLessThanOrEqual(3_000);
    expect(req!.messages[0]!.content).toContain('## Session 12 (2026-01-12)');
    expect(req!.messages[0]!.content).not.toContain('## Session 1 (');
    expect(req!.messages[0]!.content).toContain('So far.');
  });

  it('retries a 429 with backoff and then succeeds, with one usage record', async () => {
    peer.failures.push({ status: 429, retryAfterMs: 50 });
    peer.answers.push('After the wait.');
    const answer = await engineWith().answer(ctx(), { ...wholeSession('S', 'short'), question: 'Q?' });
    expect(answer).toBe('After the wait.');
    expect(peer.requests.map((r) => r.status)).toEqual([429, 200]);
    const got = await newRecords(1);
    expect(got).toHaveLength(1);
    expect(got[0]!.success).toBe(true);
  });

  it('gives up on a 500 after the retries with AiUnavailableError and records the failure', async () => {
    for (let i = 0; i < 3; i++) peer.failures.push({ status: 500, retryAfterMs: 10 });
    const err = await engineWith({ OPENAI_MAX_RETRIES: 2 })
      .answer(ctx(), { ...wholeSession('S', 'short'), question: 'Q?' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AiUnavailableError);
    expect((err as Error).message).toBe(`The AI model at ${peer.url} failed (HTTP 500, after 2 retries).`);
    expect(peer.requests.map((r) => r.status)).toEqual([500, 500, 500]);
    const [record] = await newRecords(1);
    expect(record).toMatchObject({ success: false, output_tokens: 0, request_type: 'chat' });
    expect(record!.input_tokens).toBeGreaterThan(0);
  });

  it('gives up when the server does not answer within the timeout', async () => {
    peer.failures.push({ delayMs: 20_000 });
    const before = peer.requests.length;
    const err = await engineWith({ OPENAI_TIMEOUT_MS: 1_000, OPENAI_MAX_RETRIES: 0 })
      .answer(ctx(), { ...wholeSession('S', 'short'), question: 'Q?' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AiUnavailableError);
    expect((err as Error).message).toBe(
      `The AI model at ${peer.url} did not answer within 1000 ms (after 0 retries).`,
    );
    // The client hung up on the peer (which records that as 499) instead of waiting it out,
    // and did not try again.
    expect(peer.requests.length).toBe(before + 1);
    await vi.waitFor(() => expect(peer.requests[before]!.status).toBe(499));
    expect((await newRecords(1))[0]!.success).toBe(false);
  });

  it('does not retry a refused key (401)', async () => {
    const err = await engineWith({ OPENAI_API_KEY: 'sk-wrong' })
      .answer(ctx(), { ...wholeSession('S', 'short'), question: 'Q?' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AiUnavailableError);
    expect((err as Error).message).toBe(
      `The AI model at ${peer.url} refused the credentials (HTTP 401); check OPENAI_API_KEY.`,
    );
    expect(peer.requests.map((r) => r.status)).toEqual([401]);
  });

  it('records estimated tokens and the configured prices when the server reports no usage', async () => {
    peer.sendUsage = false;
    peer.answers.push('x'.repeat(4_000));
    const engine = engineWith({ AI_PRICE_INPUT_PER_MILLION_USD: 2, AI_PRICE_OUTPUT_PER_MILLION_USD: 8 });
    await engine.plan(ctx('planning'), {
      groupName: 'C',
      sessions: [{ name: 'One', date: '2026-01-01T00:00:00.000Z', summary: 's'.repeat(40_000) }],
      campaignSummary: '',
      history: [],
      message: 'Ideas?',
      editor: null,
    });
    const [record] = await newRecords(1);
    expect(record!.output_tokens).toBe(1_000);
    expect(record!.input_tokens).toBeGreaterThanOrEqual(10_000);
    expect(record!.input_tokens).toBeLessThan(10_300);
    expect(record!.estimated_cost_usd).toBe(
      estimateCostUsd(record!.input_tokens, 1_000, { inputPerMillionUsd: 2, outputPerMillionUsd: 8 }),
    );
    expect(record).toMatchObject({ user_id: testUser, request_type: 'planning', success: true });
    expect(Number.isNaN(Date.parse(record!.created_at))).toBe(false);
    expect(record!.record_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a user over the per-minute limit before calling the model', async () => {
    const engine = engineWith({ AI_RATE_LIMIT_PER_MINUTE: 2 });
    const ask = (userId: string) =>
      engine.answer(ctx('chat', userId), { ...wholeSession('S', 'short'), question: 'Q?' });
    await ask(testUser);
    await ask(testUser);
    const err = await ask(testUser).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AiRateLimitedError);
    expect((err as AiRateLimitedError).retryAfterMs).toBeGreaterThan(0);
    expect(peer.requests).toHaveLength(2);
    // Another user has their own allowance.
    await ask(`${testUser}-other`);
    expect(peer.requests).toHaveLength(3);
  });
});
