import type { Logger } from '../logger.ts';
import { processErrors } from '../ops/metrics.ts';

/**
 * Where an error nothing caught came from: `voice` when its stack runs through the voice
 * libraries (@discordjs/voice, its DAVE and Opus modules) or the voice bot's own code, whose
 * failures a restart of the voice bot recovers from; `other` for the rest.
 */
export function originOf(err: unknown): 'voice' | 'other' {
  const stack = err instanceof Error ? (err.stack ?? '') : '';
  return /@discordjs[\\/]voice|@snazzah[\\/]davey|opusscript|prism-media|services[\\/]voice-bot[\\/]/.test(
    stack,
  )
    ? 'voice'
    : 'other';
}

export interface ProcessPolicyOptions {
  /**
   * Restarts the voice bot of this process (its Discord client, voice connections and
   * recordings, which resume from their saved state). Without it, or when it fails, a voice
   * failure is treated as any other.
   */
  restartVoice?: () => Promise<void>;
  /** How the process ends after an error it cannot recover from (default: process.exit). */
  exit?: (code: number) => void;
}

/**
 * The process-wide policy for what nothing caught, installed by the process entry points
 * (all-in-one and each service's own process), never inside a library or a test runner:
 * - every uncaught exception and unhandled rejection is logged with its stack and counted
 *   (chronicler_process_errors_total{kind,origin,action});
 * - an uncaught exception from the voice code restarts the voice bot, not the process, so a
 *   desynchronised guild never takes down the other services of an all-in-one process; any
 *   other uncaught exception ends the process (exit 1), since its state is unknown, and the
 *   supervisor starts it again;
 * - an unhandled rejection is a promise someone forgot to await: logged and counted, the
 *   process goes on (Node's default would end it).
 * Returns a function that removes the handlers.
 */
export function installProcessPolicy(log: Logger, opts: ProcessPolicyOptions = {}): () => void {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  let restarting: Promise<void> | null = null;
  const restartVoice = (err: unknown): void => {
    if (restarting) return; // one restart at a time: errors during it are part of the same failure
    log.warn({ err }, 'restarting the voice bot after an uncaught voice error');
    restarting = opts.restartVoice!().then(
      () => {
        restarting = null;
        log.info('voice bot restarted');
      },
      (restartErr: unknown) => {
        log.fatal({ err: restartErr }, 'the voice bot could not be restarted, exiting');
        exit(1);
      },
    );
  };
  const onException = (err: unknown): void => {
    const origin = originOf(err);
    const action = origin === 'voice' && opts.restartVoice ? 'restart-voice' : 'exit';
    processErrors.inc({ kind: 'uncaught_exception', origin, action });
    if (action === 'restart-voice') {
      log.error({ err, origin }, 'uncaught exception in the voice bot');
      restartVoice(err);
      return;
    }
    log.fatal({ err, origin }, 'uncaught exception, exiting');
    exit(1);
  };
  const onRejection = (reason: unknown): void => {
    const origin = originOf(reason);
    processErrors.inc({ kind: 'unhandled_rejection', origin, action: 'logged' });
    log.error({ err: reason, origin }, 'unhandled promise rejection');
  };
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}
