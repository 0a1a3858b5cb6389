import { trace } from '@opentelemetry/api';
import type { NodeSDK } from '@opentelemetry/sdk-node';

let sdk: NodeSDK | undefined;
let enabled = false;

/** Requests that only say "alive" or feed Prometheus: traced, they would bury the real ones. */
const UNTRACED_PATHS = /^\/(healthz|readyz|metrics)(\?|$)|^\/api\/health(\?|$)/;

/** Whether tracing is configured for a process with this environment. */
export function tracingConfigured(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_SDK_DISABLED === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
}

/**
 * True once startTelemetry has registered a tracer. The bus asks once, when it is created,
 * and without a tracer takes a path that makes no OpenTelemetry calls per message.
 */
export function tracingEnabled(): boolean {
  return enabled;
}

/**
 * Starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set (spans for HTTP and
 * PostgreSQL, exported over OTLP/HTTP as JSON); does nothing otherwise, so the SDK costs
 * nothing when nobody collects traces. Trace context crosses the bus in message headers
 * (see bus), and the kit's database handle makes a `db.query` span per statement.
 *
 * Call it before `http`, `fastify` and `pg` are loaded (first thing in a `main.ts`, with the
 * rest imported dynamically afterwards): the instrumentations patch modules as they are
 * required, and a module loaded earlier would go untraced. Loaded lazily so a process
 * without tracing never loads the SDK.
 */
export async function startTelemetry(
  serviceName: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  if (sdk) return true;
  if (!tracingConfigured(env)) return false;
  const [
    { NodeSDK },
    { OTLPTraceExporter },
    { HttpInstrumentation },
    { PgInstrumentation },
    resources,
    semconv,
  ] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/instrumentation-http'),
    import('@opentelemetry/instrumentation-pg'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  if (sdk) return true; // started by a concurrent call while the SDK was loading
  sdk = new NodeSDK({
    resource: resources.resourceFromAttributes({ [semconv.ATTR_SERVICE_NAME]: `chronicler-${serviceName}` }),
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.test(req.url ?? ''),
      }),
      // Only under a span of ours (a db.query): pool chatter outside a request is noise.
      new PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  enabled = true;
  return true;
}

export async function stopTelemetry(): Promise<void> {
  const s = sdk;
  sdk = undefined;
  enabled = false;
  await s?.shutdown();
}

/** The trace id of the active span, if tracing is on and a span is active. */
export function activeTraceId(): string | undefined {
  return trace.getActiveSpan()?.spanContext().traceId;
}
