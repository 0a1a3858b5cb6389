export * from './sniff.ts';
export * from './config.ts';
export * from './types.ts';
export * from './provider.ts';
export { deepgramProvider, type DeepgramOptions } from './deepgram.ts';
export { assemblyAiProvider, speakerNumber, type AssemblyAiOptions } from './assemblyai.ts';
