export * from './sniff.ts';
export * from './config.ts';
export * from './types.ts';
export * from './provider.ts';
export { deepgramProvider, type DeepgramOptions } from './deepgram.ts';
export {
  openAiProvider,
  parseTranscription,
  TranscriptionClient,
  type OpenAiTranscriptionOptions,
  type Transcribed,
  type TranscribedSegment,
} from './openai.ts';
export { pcmPieces, quietestCut, wavFile, type PcmPiece } from './audio-pieces.ts';
export { assemblyAiProvider, speakerNumber, type AssemblyAiOptions } from './assemblyai.ts';
export * from './streaming/types.ts';
export { createStreamingProvider, streamLimits } from './streaming/provider.ts';
export { createStreamGate, type StreamGateOptions } from './streaming/gate.ts';
export { deepgramLiveProvider, type DeepgramLiveOptions } from './streaming/deepgram-live.ts';
export { assemblyAiLiveProvider, type AssemblyAiLiveOptions } from './streaming/assemblyai-live.ts';
export { openAiLiveProvider, type OpenAiLiveOptions } from './streaming/openai-live.ts';
export { DEFAULT_LIVE_TUNING, type LiveTuning } from './streaming/live-connection.ts';
