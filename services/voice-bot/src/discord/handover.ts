import { voiceHandoverRpc, type VoiceHandoverReply } from '@chronicler/contracts';
import { call, serve, ServiceError, type Subscription } from '@chronicler/kit';
import type { Guild } from 'discord.js';
import type { BotCore } from './core.ts';
import { ensureLink } from './links.ts';
import type { Recording } from './recording.ts';
import type { VoiceHandlers } from './voice.ts';

/**
 * A recording moved between processes without a gap (a deploy, a shard moving): the process
 * that records it goes on recording until its successor is in the voice channel. Discord lets
 * a bot have one voice connection per guild, so the successor's join ends the predecessor's;
 * to make that moment cost nothing, it is taken at a pause in the talk, and the successor holds
 * what it hears until the predecessor has written everything it heard (its streams flushed, its
 * finals on the bus, session.json marked), then records on from there in the same files.
 *
 *   successor                         predecessor (still recording)
 *   prepare  ───────────────────────▶ waits for a pause (≤ PAUSE_WAIT_MS), stops asking
 *            ◀─────────────────────── ok     Discord for the channel itself (link released)
 *   joins voice (Discord moves the bot's voice connection; what it hears is held)
 *   joined   ───────────────────────▶ stops recording: flush, finals, suspended_at
 *            ◀─────────────────────── ok
 *   records on (resumed from the journal), the held audio first, at the times it came
 *
 * With no answer to `prepare` (no process records it: a crash) the successor recovers the
 * session from disk as before.
 */

/** How long the predecessor waits for nobody to be speaking before it lets go anyway. */
const PAUSE_WAIT_MS = 15_000;
/** How long a successor waits for `prepare`'s answer (the pause, plus a busy bus). */
const PREPARE_TIMEOUT_MS = PAUSE_WAIT_MS + 15_000;
/** How long it waits for `joined`'s: every stream's last finals (up to 10 s) and the bus. */
const JOINED_TIMEOUT_MS = 60_000;
/** Held audio beyond this many packets (5 minutes of 4 speakers) is dropped, oldest first. */
const HELD_PACKETS_MAX = 60_000;

type HeldEvent =
  { kind: 'start' | 'stop'; userId: string } | { kind: 'opus'; userId: string; packet: Buffer; atMs: number };

/** What a successor's voice link hears while its predecessor hands over: replayed in order. */
export class HeldAudio implements Omit<VoiceHandlers, 'lost'> {
  private readonly events: HeldEvent[] = [];
  private packets = 0;

  speakingStart(userId: string): void {
    this.events.push({ kind: 'start', userId });
  }

  speakingStop(userId: string): void {
    this.events.push({ kind: 'stop', userId });
  }

  opus(userId: string, packet: Buffer): void {
    this.events.push({ kind: 'opus', userId, packet, atMs: Date.now() });
    if (++this.packets > HELD_PACKETS_MAX) {
      const i = this.events.findIndex((e) => e.kind === 'opus');
      this.events.splice(i, 1);
      this.packets--;
    }
  }

  /** Seconds of audio held (packets of 20 ms, all speakers). */
  get seconds(): number {
    return this.packets * 0.02;
  }

  replay(into: Omit<VoiceHandlers, 'lost'>): void {
    for (const e of this.events.splice(0)) {
      if (e.kind === 'start') into.speakingStart(e.userId);
      else if (e.kind === 'stop') into.speakingStop(e.userId);
      else if (e.kind === 'opus') into.opus(e.userId, e.packet, e.atMs);
    }
    this.packets = 0;
  }
}

/** A recording's side of a hand-over, while it runs in this process. */
export interface Handoff {
  sub: Subscription;
  /** Resolves once the recording was handed to a successor. */
  handedOver: Promise<void>;
  /** Whether a successor was told to join and has not said it did yet. */
  preparing(): boolean;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

/**
 * A stopping process: waits up to `waitMs` for a successor to take the recording over, and
 * for a hand-over already under way to finish.
 */
export async function waitForSuccessor(rec: Recording, waitMs: number): Promise<void> {
  const h = rec.handoff;
  if (!h) return;
  if (waitMs > 0) await Promise.race([h.handedOver, sleep(waitMs)]);
  if (h.preparing()) await Promise.race([h.handedOver, sleep(JOINED_TIMEOUT_MS)]);
}

/**
 * Answers a successor's hand-over requests for this recording (the predecessor's side), while
 * it runs in this process.
 */
export function serveHandover(core: BotCore, guild: Guild, rec: Recording): Handoff {
  const g = core.guildVoice(guild.id);
  const tid = rec.state.transcript_id;
  let preparing = false;
  let resolveHanded!: () => void;
  const handedOver = new Promise<void>((resolve) => (resolveHanded = resolve));
  const sub = serve(core.o.bus, voiceHandoverRpc(tid), async (req): Promise<VoiceHandoverReply> => {
    if (g.recording !== rec) return { ok: false };
    const log = core.log.child({ guildId: guild.id, transcriptId: tid, successor: req.instance });
    if (req.stage === 'prepare') {
      const quiet = await rec.untilQuiet(PAUSE_WAIT_MS);
      if (g.recording !== rec) return { ok: false };
      preparing = true;
      g.link?.release(true);
      log.info({ quiet }, 'recording handed over at a pause: the successor joins');
      return { ok: true };
    }
    if (req.stage === 'cancel') {
      preparing = false;
      g.link?.release(false);
      log.warn('the successor could not join; recording on');
      return { ok: true };
    }
    // Joined: Discord moved the bot's voice to the successor; what this process heard is written.
    preparing = false;
    g.recording = null;
    const link = g.link;
    g.link = null;
    await rec.handOver({ seamless: true });
    await link?.close({ stay: true }).catch(() => {});
    resolveHanded();
    log.info('recording handed over to the successor');
    return { ok: true, ...(rec.state.suspended_at ? { suspended_at: rec.state.suspended_at } : {}) };
  });
  return { sub, handedOver, preparing: () => preparing };
}

/**
 * The successor's side: asks whichever process records the session to hand it over, joins
 * the channel and holds what it hears until the predecessor is done. True when it was handed
 * over (the voice link is up, `g.held` holds what came meanwhile); false when no process
 * answered (it crashed: recover it from disk) or the predecessor went away before it was done.
 */
export async function takeOver(
  core: BotCore,
  guild: Guild,
  tid: string,
  channelId: string,
): Promise<boolean> {
  const g = core.guildVoice(guild.id);
  const endpoint = voiceHandoverRpc(tid);
  const ask = (stage: 'prepare' | 'joined' | 'cancel', timeoutMs: number) =>
    call(core.o.bus, endpoint, { stage, instance: core.o.instance }, { timeoutMs });
  try {
    if (!(await ask('prepare', PREPARE_TIMEOUT_MS)).ok) return false;
  } catch (err) {
    // No responder: nobody records it (a crash). A timeout: its process hangs; recovered too.
    if (!(ServiceError.is(err) && (err.code === 'unavailable' || err.code === 'timeout'))) throw err;
    return false;
  }
  g.held = new HeldAudio();
  try {
    await ensureLink(core, guild, channelId);
  } catch (err) {
    g.held = null;
    await ask('cancel', 10_000).catch(() => undefined);
    throw err;
  }
  try {
    return (await ask('joined', JOINED_TIMEOUT_MS)).ok;
  } catch (err) {
    core.log.warn(
      { err, transcriptId: tid },
      'the predecessor did not finish the hand-over; recovering from disk',
    );
    return false;
  }
}
