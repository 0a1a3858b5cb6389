// Tracing starts before anything else loads: its HTTP and pg instrumentation can only
// patch modules required after it, so the rest is imported once it has started.
import { startTelemetry, stopTelemetry } from '@chronicler/kit/telemetry';

await startTelemetry('all-in-one');
const { ConfigError, createLogger, installProcessPolicy, logLevelOf, onShutdownSignal } =
  await import('@chronicler/kit');
const { startEmbedded } = await import('./embedded.ts');

// Each service logs through a child that names it; this process's own lines say all-in-one.
const root = createLogger(null, { level: logLevelOf(process.env) });
const log = root.child({ service: 'all-in-one' });
try {
  const system = await startEmbedded(process.env, { logger: root });
  log.info({ url: system.url, mode: system.platform.mode }, `Chronicler is running on ${system.url}`);
  // A voice failure restarts the voice bot, never the other eight services of this process.
  installProcessPolicy(log, { restartVoice: () => system.restartService('voice-bot') });
  onShutdownSignal(async () => {
    await system.stop();
    await stopTelemetry();
  }, log);
} catch (err) {
  if (err instanceof ConfigError) {
    log.fatal({ problems: err.problems }, err.message);
    process.exit(78);
  }
  log.fatal({ err }, 'could not start');
  process.exit(1);
}
