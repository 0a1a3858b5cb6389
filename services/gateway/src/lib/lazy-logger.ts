import type { Logger } from '@chronicler/kit';
import type { FastifyBaseLogger } from 'fastify';

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type ChildOptions = Parameters<Logger['child']>[1];
type Write = (...a: unknown[]) => void;

/**
 * The per-request logger: pino's child (`{ reqId }`) is made only when a line is actually
 * written. pino's child() copies and redacts its bindings at once, which under load was about
 * 1.5% of the gateway's CPU for loggers that, at the default level, almost never write
 * (request lines are at debug, plugins/request-log.ts). A class, so that a request costs one
 * small object and no closures (seven closures a request were another 2%, issue 46).
 */
class LazyLogger {
  private real: Logger | undefined;
  constructor(
    private readonly parent: Logger,
    private readonly bindings: Record<string, unknown>,
    private readonly opts: ChildOptions,
  ) {}

  private made(): Logger {
    return (this.real ??= this.parent.child(this.bindings, this.opts) as unknown as Logger);
  }

  private write(level: Level, args: unknown[]): void {
    if (this.real) return void (this.real[level] as Write)(...args);
    if (!this.parent.isLevelEnabled(level)) return;
    (this.made()[level] as Write)(...args);
  }

  fatal(...args: unknown[]): void {
    this.write('fatal', args);
  }
  error(...args: unknown[]): void {
    this.write('error', args);
  }
  warn(...args: unknown[]): void {
    this.write('warn', args);
  }
  info(...args: unknown[]): void {
    this.write('info', args);
  }
  debug(...args: unknown[]): void {
    this.write('debug', args);
  }
  trace(...args: unknown[]): void {
    this.write('trace', args);
  }
  silent(): void {}

  get level(): string {
    return (this.real ?? this.parent).level;
  }
  set level(level: string) {
    this.made().level = level;
  }
  isLevelEnabled(level: string): boolean {
    return (this.real ?? this.parent).isLevelEnabled(level);
  }
  child(b: Record<string, unknown>, o?: ChildOptions): Logger {
    return this.made().child(b, o) as unknown as Logger;
  }
}

/** fastify's childLoggerFactory (see LazyLogger). */
export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Record<string, unknown>,
  opts: ChildOptions,
): FastifyBaseLogger {
  return new LazyLogger(logger as Logger, bindings, opts) as unknown as FastifyBaseLogger;
}
