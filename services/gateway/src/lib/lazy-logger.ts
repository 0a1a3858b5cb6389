import type { Logger } from '@chronicler/kit';
import type { FastifyBaseLogger } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type ChildOptions = Parameters<Logger['child']>[1];

/**
 * fastify's childLoggerFactory: the per-request logger (`{ reqId }`) is made only when a line
 * is actually written. pino's child() copies and redacts its bindings at once, which under
 * load was about 1.5% of the gateway's CPU for loggers that, at the default level, almost
 * never write (request lines are at debug, plugins/request-log.ts).
 */
export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Record<string, unknown>,
  opts: ChildOptions,
): FastifyBaseLogger {
  const parent = logger as Logger;
  let real: Logger | undefined;
  const child = (): Logger => (real ??= parent.child(bindings, opts) as unknown as Logger);
  const method =
    (level: Level) =>
    (...args: unknown[]): void => {
      if (real) return void (real[level] as (...a: unknown[]) => void)(...args);
      if (!parent.isLevelEnabled(level)) return;
      (child()[level] as (...a: unknown[]) => void)(...args);
    };
  const lazy = {
    fatal: method('fatal'),
    error: method('error'),
    warn: method('warn'),
    info: method('info'),
    debug: method('debug'),
    trace: method('trace'),
    silent: () => undefined,
    get level(): string {
      return (real ?? parent).level;
    },
    set level(level: string) {
      child().level = level;
    },
    isLevelEnabled: (level: string): boolean => (real ?? parent).isLevelEnabled(level),
    child: (b: Record<string, unknown>, o?: ChildOptions) => child().child(b, o) as unknown as Logger,
  };
  return lazy as unknown as FastifyBaseLogger;
}
