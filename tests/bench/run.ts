// `pnpm bench [name...]`: runs the named benchmarks (all when none is named).
import { benchAiTokens } from './ai-tokens.ts';
import { benchAudioSeek } from './audio-seek.ts';
import { benchBrowserLibrary } from './browser-library.ts';
import { benchBus } from './bus.ts';
import { benchCheckSummary } from './check-summary.ts';
import { benchGateway } from './gateway.ts';
import { benchListLatency } from './list-latency.ts';
import { benchLive } from './live.ts';
import { benchLiveJoin } from './live-join.ts';
import { benchOfflineAi } from './offline-ai.ts';
import { benchServiceMemory } from './service-memory.ts';
import { benchSearch } from './search.ts';
import { benchSearchIndex } from './search-index.ts';
import { benchUploadMemory } from './upload-memory.ts';
import { benchVoice } from './voice.ts';

const benches: Record<string, () => Promise<void>> = {
  bus: benchBus,
  gateway: benchGateway,
  'upload-memory': benchUploadMemory,
  'audio-seek': benchAudioSeek,
  'list-latency': benchListLatency,
  'browser-library': benchBrowserLibrary,
  'ai-tokens': benchAiTokens,
  'check-summary': benchCheckSummary,
  live: benchLive,
  'live-join': benchLiveJoin,
  'offline-ai': benchOfflineAi,
  'service-memory': benchServiceMemory,
  search: benchSearch,
  'search-index': benchSearchIndex,
  voice: benchVoice,
  load: () => import('./load.ts').then((m) => m.benchLoad()),
};
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
for (const name of wanted.length ? wanted : Object.keys(benches)) {
  const run = benches[name];
  if (!run) {
    console.error(`unknown benchmark ${name}; known: ${Object.keys(benches).join(', ')}`);
    process.exit(2);
  }
  await run();
}
// A bench that failed its limit set exitCode; the open handles some leave are not waited for.
process.exit(process.exitCode ?? 0);
