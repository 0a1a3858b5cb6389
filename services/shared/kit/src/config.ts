import { Type, type Static, type TObject, type TProperties } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/**
 * Reads a service's configuration from the environment with a TypeBox schema whose keys
 * are the variable names. Strings are converted to the schema's types (numbers, booleans),
 * defaults are applied, and a missing or bad value throws a ConfigError naming the
 * variable, so `main` can stop the process with a message an operator understands.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: { variable: string; message: string }[]) {
    super('Invalid configuration: ' + problems.map((p) => `${p.variable}: ${p.message}`).join('; '));
  }
}

export function loadConfig<P extends TProperties>(
  schema: TObject<P>,
  env: NodeJS.ProcessEnv = process.env,
): Static<TObject<P>> {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const value = env[key];
    // An empty variable counts as unset: `FOO=` in a .env file means "no value".
    if (value !== undefined && value !== '') raw[key] = value;
  }
  // Value.Default and Value.Convert may change their input, so they work on a copy.
  const withDefaults = Value.Default(schema, { ...raw });
  const converted = Value.Convert(schema, withDefaults);
  const problems: { variable: string; message: string }[] = [];
  for (const err of Value.Errors(schema, converted)) {
    const variable = err.path.replace(/^\//, '') || '(root)';
    if (problems.some((p) => p.variable === variable)) continue;
    const missing = raw[variable] === undefined && schema.properties[variable] !== undefined;
    problems.push({
      variable,
      message: missing ? 'is required but not set' : `${err.message} (got ${JSON.stringify(env[variable])})`,
    });
  }
  if (problems.length) throw new ConfigError(problems);
  return converted as Static<TObject<P>>;
}

/** Helpers for the common shapes of environment variables. */
export const Env = {
  url: (opts: { default?: string; description?: string } = {}) =>
    Type.String({ pattern: '^[a-z][a-z0-9+.-]*://', ...opts }),
  port: (def: number) => Type.Integer({ minimum: 0, maximum: 65535, default: def }),
  bool: (def: boolean) => Type.Boolean({ default: def }),
  /** Comma-separated list. */
  list: () => Type.String({ default: '' }),
};

/** The level of every process's log (pino's levels). Read with the rest of a process's settings. */
export const LogConfigSchema = Type.Object({
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info' },
  ),
});

/**
 * LOG_LEVEL as the schema reads it; a bad value is reported (with the others) by whoever
 * loads LogConfigSchema, and until then the log runs at 'info' so that report is seen.
 */
export function logLevelOf(env: NodeJS.ProcessEnv = process.env): string {
  try {
    return loadConfig(LogConfigSchema, env).LOG_LEVEL;
  } catch {
    return 'info';
  }
}

export const splitList = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const LocalSignInConfigSchema = Type.Object({
  AUTH_LOCAL_ENABLED: Type.Optional(Type.Boolean()),
  DISCORD_CLIENT_ID: Type.Optional(Type.String()),
  DISCORD_CLIENT_SECRET: Type.Optional(Type.String()),
  GOOGLE_CLIENT_ID: Type.Optional(Type.String()),
});

/**
 * Whether the auth service offers the local account, worked out from the same variables by
 * the same rule (AUTH_LOCAL_ENABLED, default on in embedded mode, never next to Discord or
 * Google), for a process that must act on it without importing the auth service: the
 * embedded runner keeps the gateway on loopback while it is on.
 */
export function localSignInEnabled(env: NodeJS.ProcessEnv, mode: 'embedded' | 'cluster'): boolean {
  return localSignInRule(loadConfig(LocalSignInConfigSchema, env), mode);
}

/**
 * The rule itself, on settings already read (the auth service applies it to its own config):
 * local accounts are for a machine without a provider, never offered next to Discord or
 * Google, and a cluster must opt in explicitly.
 */
export function localSignInRule(
  cfg: Static<typeof LocalSignInConfigSchema>,
  mode: 'embedded' | 'cluster',
): boolean {
  const provider =
    Boolean(cfg.DISCORD_CLIENT_ID && cfg.DISCORD_CLIENT_SECRET) || Boolean(cfg.GOOGLE_CLIENT_ID);
  return !provider && (cfg.AUTH_LOCAL_ENABLED ?? mode === 'embedded');
}
