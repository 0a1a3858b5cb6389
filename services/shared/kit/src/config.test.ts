import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { ConfigError, Env, loadConfig, LogConfigSchema, logLevelOf, splitList } from './config.ts';
import { loadPlatformConfig } from './runtime/platform.ts';

const Schema = Type.Object({
  PORT: Env.port(8000),
  DATABASE_URL: Env.url(),
  DEBUG_SQL: Env.bool(false),
  REDIS_URL: Type.Optional(Env.url()),
});

describe('loadConfig', () => {
  it('converts strings to the schema types and applies defaults', () => {
    expect(loadConfig(Schema, { DATABASE_URL: 'postgres://db/x', DEBUG_SQL: 'true', PORT: '9000' })).toEqual({
      PORT: 9000,
      DATABASE_URL: 'postgres://db/x',
      DEBUG_SQL: true,
    });
    expect(loadConfig(Schema, { DATABASE_URL: 'postgres://db/x' }).PORT).toBe(8000);
  });

  it('names a missing required variable', () => {
    expect(() => loadConfig(Schema, {})).toThrow(ConfigError);
    try {
      loadConfig(Schema, {});
    } catch (err) {
      expect((err as ConfigError).problems).toEqual([
        { variable: 'DATABASE_URL', message: 'is required but not set' },
      ]);
      expect((err as Error).message).toBe('Invalid configuration: DATABASE_URL: is required but not set');
    }
  });

  it('names every bad value, with what it got', () => {
    try {
      loadConfig(Schema, { DATABASE_URL: 'not a url', PORT: '70000', REDIS_URL: 'localhost:6379' });
      expect.unreachable();
    } catch (err) {
      const problems = (err as ConfigError).problems;
      expect(problems.map((p) => p.variable).sort()).toEqual(['DATABASE_URL', 'PORT', 'REDIS_URL']);
      expect(problems.find((p) => p.variable === 'PORT')?.message).toContain('"70000"');
    }
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig(Schema, { DATABASE_URL: 'postgres://db/x', REDIS_URL: '', PORT: '' })).toEqual({
      PORT: 8000,
      DATABASE_URL: 'postgres://db/x',
      DEBUG_SQL: false,
    });
  });

  it('ignores variables the schema does not name', () => {
    expect(loadConfig(Type.Object({ A: Type.String({ default: 'a' }) }), { B: 'b' })).toEqual({ A: 'a' });
  });
});

describe('splitList', () => {
  it('splits on commas, trims, and drops empties', () => {
    expect(splitList(' 1, 2,,3 ')).toEqual(['1', '2', '3']);
    expect(splitList(undefined)).toEqual([]);
  });
});

describe('settings every process reads', () => {
  it('reads LOG_LEVEL through its schema and names it when it is wrong', () => {
    expect(loadConfig(LogConfigSchema, {}).LOG_LEVEL).toBe('info');
    expect(logLevelOf({ LOG_LEVEL: 'debug' })).toBe('debug');
    // Until the bad value is reported, the log stays at info so the report is seen.
    expect(logLevelOf({ LOG_LEVEL: 'loud' })).toBe('info');
    expect(() => loadConfig(LogConfigSchema, { LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });
  it('reads NATS_STREAM_REPLICAS with the platform settings', () => {
    expect(loadPlatformConfig({}).NATS_STREAM_REPLICAS).toBe(1);
    expect(loadPlatformConfig({ NATS_STREAM_REPLICAS: '3' }).NATS_STREAM_REPLICAS).toBe(3);
    const err = (() => {
      try {
        loadPlatformConfig({ NATS_STREAM_REPLICAS: '7' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems.map((p) => p.variable)).toEqual(['NATS_STREAM_REPLICAS']);
  });
});
