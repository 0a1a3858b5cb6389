export * from './cost.ts';
export * from './engine.ts';
export * from './config.ts';
export * from './create.ts';
export * from './usage.ts';
export * from './retrieval.ts';
export * from './group-characters.ts';
