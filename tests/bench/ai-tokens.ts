// AI chat tokens: what one chat turn on a 500,000-character transcript sends to the model
// (instructions, the passages the transcript service finds for the question within the
// engine's plan, the recent turns) against what the whole transcript would cost. The OpenAI
// engine runs against the local OpenAI-compatible peer, which counts the prompt's tokens (4
// characters each) like a server would report them. busChars is what the turn put on the bus
// (the transcript service's passages answer), where chat used to fetch the whole transcript.
// The ratio must stay at or under 0.1 (issue #5); the run fails when it does not.
import { createBus, createLogger, MemoryCoordination } from '@chronicler/kit';
import { randomUUID } from 'node:crypto';
import { OpenAiEngine } from '../../services/shared/ai/src/openai/engine.ts';
import { peerTokens, startOpenAiPeer } from '../peers/openai.ts';
import { CRD3_EPISODES, crd3Transcript } from '../support/crd3.ts';
import { openPassageBed } from '../support/passage-bed.ts';
import { printTable } from './report.ts';

const TRANSCRIPT_CHARS = 500_000;
const MAX_RATIO = 0.1;
const QUESTIONS = [
  'What happened in the dragon lair?',
  'Who paid the innkeeper, and how much gold?',
  'What did Scanlan sing?',
  'Summarise the fight with the trolls.',
];

export async function benchAiTokens(): Promise<void> {
  const all = CRD3_EPISODES.map((e) => crd3Transcript(e, { timed: true })).join('\n');
  const transcript = all.slice(0, all.lastIndexOf('\n', TRANSCRIPT_CHARS));
  const peer = await startOpenAiPeer();
  const bus = await createBus({ prefix: `bench${randomUUID().slice(0, 8)}`, name: 'bench-ai-tokens' });
  const coord = new MemoryCoordination();
  const bed = await openPassageBed();
  const id = await bed.add({ name: 'Marathon', content: transcript });
  try {
    const engine = new OpenAiEngine(
      {
        OPENAI_API_KEY: peer.apiKey,
        OPENAI_BASE_URL: peer.url,
        OPENAI_MODEL: 'bench-model',
        OPENAI_CONTEXT_TOKENS: 128_000,
        OPENAI_TIMEOUT_MS: 30_000,
        OPENAI_MAX_RETRIES: 0,
        AI_PRICE_INPUT_PER_MILLION_USD: 0.1,
        AI_PRICE_OUTPUT_PER_MILLION_USD: 0.4,
        AI_RATE_LIMIT_PER_MINUTE: 1_000,
        AI_OFFLINE_THREADS: 1,
        AI_OFFLINE_NICE: 0,
      },
      { bus, coord, logger: createLogger('bench', { level: 'silent' }) },
    );
    await engine.ready();
    const wholeTokens = peerTokens(transcript);
    const rows = [];
    for (const question of QUESTIONS) {
      const history = [
        { role: 'user' as const, content: 'Who is Grog?' },
        { role: 'assistant' as const, content: 'Grog Strongjaw is the goliath barbarian of the party.' },
      ];
      const started = performance.now();
      const found = await bed.findFor(engine, id, question, history);
      await engine.answer(
        { userId: 'bench', type: 'chat' },
        { name: 'Marathon', scope: 'session', found, history, question },
      );
      const ms = performance.now() - started;
      const sent = peer.requests.at(-1)!.promptTokens;
      rows.push({
        question,
        transcriptChars: transcript.length,
        // What crossed the bus for the turn: the passages answer, where the whole text used to.
        busChars: JSON.stringify(found).length,
        wholeTokens,
        sentTokens: sent,
        ratio: sent / wholeTokens,
        ms,
      });
    }
    printTable(
      `AI chat tokens on a ${transcript.length}-character transcript (limit ratio ${MAX_RATIO})`,
      rows,
    );
    const worst = Math.max(...rows.map((r) => r.ratio));
    if (worst > MAX_RATIO) {
      console.error(
        `FAIL: a chat turn sent ${worst.toFixed(3)} of the transcript's tokens (limit ${MAX_RATIO})`,
      );
      process.exitCode = 1;
    } else {
      console.log(`OK: at most ${worst.toFixed(3)} of the transcript's tokens per chat turn`);
    }
  } finally {
    await coord.close();
    await bed.close();
    await bus.close();
    await peer.close();
  }
}
