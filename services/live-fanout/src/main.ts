// Tracing starts before anything else loads: its HTTP and pg instrumentation can only
// patch modules required after it, so the rest is imported once it has started.
import { startTelemetry } from '@chronicler/kit/telemetry';

await startTelemetry('live-fanout');
const { runStandalone } = await import('@chronicler/kit');
const { default: service } = await import('./service.ts');
await runStandalone(service);
