export * from './replay.ts';
export * from './sink.ts';
