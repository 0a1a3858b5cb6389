import type { NodeSDK } from '@opentelemetry/sdk-node';

let sdk: NodeSDK | undefined;

/**
 * Starts OpenTelemetry tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set (spans for HTTP and
 * PostgreSQL, exported over OTLP/HTTP); does nothing otherwise, so the SDK costs nothing
 * when nobody collects traces. Trace context crosses the bus in message headers (see bus).
 * Loaded lazily so a process without tracing never loads the SDK.
 */
export async function startTelemetry(
  serviceName: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT || sdk) return Boolean(sdk);
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
  sdk = new NodeSDK({
    resource: resources.resourceFromAttributes({ [semconv.ATTR_SERVICE_NAME]: `chronicler-${serviceName}` }),
    traceExporter: new OTLPTraceExporter(),
    instrumentations: [new HttpInstrumentation(), new PgInstrumentation()],
  });
  sdk.start();
  return true;
}

export async function stopTelemetry(): Promise<void> {
  await sdk?.shutdown();
  sdk = undefined;
}
