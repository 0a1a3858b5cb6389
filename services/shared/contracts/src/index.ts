export * from './services.ts';
export * from './subjects.ts';
export * from './health.ts';
export * from './rpc.ts';
export * from './events.ts';
export * from './auth.ts';
export * from './sessions.ts';
