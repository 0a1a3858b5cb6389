import {
  aiRequestRecordedEvent,
  USAGE_EVENTS_STREAM,
  usageEventsStream,
  type AiRequestRecorded,
} from '@chronicler/contracts';
import { createBus, createLogger, MemoryCoordination, type Bus, type Consumer } from '@chronicler/kit';
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startOpenAiPeer, peerTokens, type OpenAiPeer } from '../../../../../tests/peers/openai.ts';
import { CRD3_EPISODES, crd3Transcript } from '../../../../../tests/support/crd3.ts';
import type { AiConfig } from '../config.ts';
import { estimateCostUsd } from '../cost.ts';
import { createAiEngine } from '../create.ts';
import { AiRateLimitedError, AiUnavailableError, type AiRequestContext } from '../engine.ts';
import { createOpenAiClient, streamChat } from './client.ts';
import { chunkAtLines, OpenAiEngine } from './engine.ts';
import {
  CHAT_INSTRUCTIONS,
  MERGE_SUMMARY_INSTRUCTIONS,
  PART_SUMMARY_INSTRUCTIONS,
  SESSION_SUMMARY_SECTIONS,
} from './prompts.ts';

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

  beforeAll(async () => {
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

  it('summarises a transcript that fits the context in one request', async () => {
    const transcript = crd3Transcript('C1E001', { timed: true, maxChars: 20_000 });
    peer.answers.push('The party met in a tavern.');
    const summary = await engineWith().summarizeSession(ctx('session_summary'), {
      name: 'Session 1',
      transcript,
    });
    expect(summary).toBe('The party met in a tavern.');
    expect(peer.requests).toHaveLength(1);
    const [req] = peer.requests;
    expect(req!.model).toBe('peer-model-1');
    expect(req!.authorization).toBe(`Bearer ${peer.apiKey}`);
    expect(req!.messages[1]!.content).toContain(transcript);
    const [record] = await newRecords(1);
    expect(record).toMatchObject({
      user_id: testUser,
      request_type: 'session_summary',
      model: 'peer-model-1',
      input_tokens: req!.promptTokens,
      output_tokens: peerTokens('The party met in a tavern.'),
      success: true,
    });
  });

  it('asks for the sections a game master uses, time links out of the prose, and names who is who', async () => {
    const transcript = crd3Transcript('C2E003', { timed: true, maxChars: 20_000 });
    peer.answers.push('### What happened\n- The party meets. [[00:00:10]](#t=00:00:10)');
    await engineWith().summarizeSession(ctx('session_summary'), {
      name: 'Session 3',
      transcript,
      characters: [{ speaker: 'TRAVIS', character: 'Fjord' }],
    });
    const [req] = peer.requests;
    for (const heading of SESSION_SUMMARY_SECTIONS) expect(req!.messages[0]!.content).toContain(heading);
    expect(req!.messages[0]!.content).toContain('[[HH:MM:SS]](#t=HH:MM:SS)');
    expect(req!.messages[1]!.content).toContain('TRAVIS: Fjord');
    // The map costs a line, not a second copy of anything: the request stays the transcript's size.
    expect(req!.promptTokens).toBeLessThan(
      peerTokens(transcript) + peerTokens(req!.messages[0]!.content) + 100,
    );

    peer.answers.push('### Story so far\n- ...');
    await engineWith().summarizeCampaign(ctx('campaign_summary'), {
      name: 'Nein',
      sessions: [{ name: 'S1', date: '2018-01-25T00:00:00Z', summary: 'Fjord rides to Alfield.' }],
      characters: [{ speaker: 'TRAVIS', character: 'Fjord' }],
    });
    const campaign = peer.requests[1]!;
    expect(campaign.messages[0]!.content).toMatch(/### Characters[\s\S]*never listed as a place/);
    expect(campaign.messages[1]!.content).toContain('TRAVIS: Fjord');
  });

  it('summarises a transcript longer than the context by map-reduce at line boundaries', async () => {
    const transcript = crd3Transcript('C1E005', { timed: true, maxChars: 60_000 });
    const engine = engineWith({ OPENAI_CONTEXT_TOKENS: 6_000 });
    const summary = await engine.summarizeSession(ctx('session_summary'), { name: 'Long one', transcript });
    const parts = peer.requests.filter((r) => r.messages[0]!.content === PART_SUMMARY_INSTRUCTIONS);
    const merges = peer.requests.filter((r) => r.messages[0]!.content === MERGE_SUMMARY_INSTRUCTIONS);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(merges).toHaveLength(1);
    expect(peer.requests).toHaveLength(parts.length + 1);
    // Every request fits the 6,000-token context with room for the answer.
    for (const r of peer.requests) expect(r.promptTokens).toBeLessThanOrEqual(6_000 - 1_500);
    // The parts are the transcript, cut between lines, in order.
    const bodies = parts
      .map((r) => r.messages[1]!.content)
      .sort((a, b) => Number(/part (\d+) of/.exec(a)![1]) - Number(/part (\d+) of/.exec(b)![1]))
      .map((c) => c.slice(c.indexOf(` of ${parts.length})\n`) + ` of ${parts.length})\n`.length));
    expect(bodies.join('\n')).toBe(transcript);
    for (const b of bodies) expect(b).toMatch(/^\[\d\d:\d\d:\d\d\] /);
    // The merge sees every part's summary and its answer is the summary.
    expect(merges[0]!.messages[1]!.content).toContain('Part 1:\nAnswer ');
    expect(summary).toMatch(/^Answer [0-9a-f]{12} to \d+ characters\.$/);
    expect(await newRecords(parts.length + 1)).toHaveLength(parts.length + 1);
  });

  it('splits text at line boundaries, cutting only a line longer than a chunk', () => {
    expect(chunkAtLines('aaaa\nbbbb\ncc', 9)).toEqual(['aaaa\nbbbb', 'cc']);
    expect(chunkAtLines('abcdefghij\nk', 4)).toEqual(['abcd', 'efgh', 'ij\nk']);
  });

  it('sends at most a tenth of a 500,000-character transcript for a chat turn, with a fixed prefix', async () => {
    const transcript = longTranscript(500_000);
    expect(transcript.length).toBeGreaterThan(499_000);
    const engine = engineWith();
    const history = [
      { role: 'user' as const, content: 'Who is Grog?' },
      { role: 'assistant' as const, content: 'Grog is the goliath barbarian [00:01:04].' },
    ];
    await engine.answer(ctx(), {
      transcriptName: 'Marathon',
      transcript,
      history,
      question: 'What did they find in the dragon lair?',
    });
    await engine.answer(ctx(), {
      transcriptName: 'Marathon',
      transcript,
      history: [],
      question: 'Who paid the gold to the innkeeper?',
    });
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
      transcriptName: 'Short',
      transcript,
      history: [],
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
      transcriptName: 'S',
      transcript: '[00:12:00] Matt: Grog drinks.',
      history: [],
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
    const input = { transcriptName: 'S', transcript: 'short', history: [], question: 'Q?' };
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
    const answer = await engineWith().answer(ctx(), {
      transcriptName: 'S',
      transcript: 'short',
      history: [],
      question: 'Q?',
    });
    expect(answer).toBe('After the wait.');
    expect(peer.requests.map((r) => r.status)).toEqual([429, 200]);
    const got = await newRecords(1);
    expect(got).toHaveLength(1);
    expect(got[0]!.success).toBe(true);
  });

  it('gives up on a 500 after the retries with AiUnavailableError and records the failure', async () => {
    for (let i = 0; i < 3; i++) peer.failures.push({ status: 500, retryAfterMs: 10 });
    const err = await engineWith({ OPENAI_MAX_RETRIES: 2 })
      .answer(ctx(), { transcriptName: 'S', transcript: 'short', history: [], question: 'Q?' })
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
      .answer(ctx(), { transcriptName: 'S', transcript: 'short', history: [], question: 'Q?' })
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
      .answer(ctx(), { transcriptName: 'S', transcript: 'short', history: [], question: 'Q?' })
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
    await engine.summarizeCampaign(ctx('campaign_summary'), {
      name: 'C',
      sessions: [{ name: 'One', date: '2026-01-01T00:00:00.000Z', summary: 's'.repeat(40_000) }],
    });
    const [record] = await newRecords(1);
    expect(record!.output_tokens).toBe(1_000);
    expect(record!.input_tokens).toBeGreaterThanOrEqual(10_000);
    expect(record!.input_tokens).toBeLessThan(10_300);
    expect(record!.estimated_cost_usd).toBe(
      estimateCostUsd(record!.input_tokens, 1_000, { inputPerMillionUsd: 2, outputPerMillionUsd: 8 }),
    );
    expect(record).toMatchObject({ user_id: testUser, request_type: 'campaign_summary', success: true });
    expect(Number.isNaN(Date.parse(record!.created_at))).toBe(false);
    expect(record!.record_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('refuses a user over the per-minute limit before calling the model', async () => {
    const engine = engineWith({ AI_RATE_LIMIT_PER_MINUTE: 2 });
    const ask = (userId: string) =>
      engine.answer(ctx('chat', userId), {
        transcriptName: 'S',
        transcript: 'short',
        history: [],
        question: 'Q?',
      });
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
