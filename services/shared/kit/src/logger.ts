import { context, trace } from '@opentelemetry/api';
import pino, { type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

/**
 * pino JSON to stdout, one line per event. Every line carries the service name and,
 * when a span is active, its trace and span ids; request and message ids are added with
 * child loggers (`log.child({ reqId })`, `log.child({ msgId })`). The embedded runner
 * passes `null` and names each service in a child, so no line carries `service` twice.
 */
export function createLogger(
  service: string | null,
  opts: { level?: string; destination?: pino.DestinationStream } = {},
): Logger {
  const options: LoggerOptions = {
    level: opts.level ?? process.env.LOG_LEVEL ?? 'info',
    base: service ? { service } : {},
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin() {
      const span = trace.getSpan(context.active());
      if (!span) return {};
      const { traceId, spanId } = span.spanContext();
      return { traceId, spanId };
    },
    redact: {
      paths: [
        'req.headers.authorization',
        'req.headers.cookie',
        'req.headers["auth-token"]',
        '*.token',
        '*.password',
      ],
      censor: '[redacted]',
    },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
