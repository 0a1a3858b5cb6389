import {
  EndBehaviorType,
  entersState,
  joinVoiceChannel,
  VoiceConnectionDisconnectReason,
  VoiceConnectionStatus,
  type AudioReceiveStream,
  type VoiceConnection,
} from '@discordjs/voice';
import type { Logger } from '@chronicler/kit';
import type { Guild } from 'discord.js';
import { hearUnannounced } from './unannounced.ts';

/**
 * Voice receive behind a small interface: speaking start/stop and per-speaker Opus frames in.
 * The bot's session logic (who is recorded, the watchdog, the live pipeline) sits on top of
 * it and never touches @discordjs/voice.
 */
export interface VoiceHandlers {
  speakingStart(userId: string): void;
  speakingStop(userId: string): void;
  /** One 20 ms Opus packet (48 kHz stereo) of a user, decrypted; `atMs`: when it came, if held. */
  opus(userId: string, packet: Buffer, atMs?: number): void;
  /**
   * The link dropped and will not come back by itself (kicked, channel deleted, gave up).
   * `final`: Discord said not to reconnect (4021 rate limited, 4022 call terminated).
   */
  lost(reason: string, opts?: { final?: boolean }): void;
}

export interface VoiceLink {
  readonly guildId: string;
  readonly channelId: string;
  /** Leaves the channel (or only drops the link, with `{ stay: true }`, before a rejoin). */
  close(opts?: { stay?: boolean }): Promise<void>;
  /**
   * While released, the link never asks Discord for the channel again (no voice state update):
   * a successor process is taking the bot's voice over, and the library's own rejoin after
   * Discord moves the voice there would take it back. It keeps receiving until then.
   */
  release(released: boolean): void;
}

export interface VoiceReceiver {
  connect(guild: Guild, channelId: string, handlers: VoiceHandlers): Promise<VoiceLink>;
}

const READY_TIMEOUT_MS = 20_000;
/**
 * Voice close codes after which Discord says not to reconnect (discord-api-docs, Opcodes and
 * Status Codes, Voice Close Event Codes), besides 4014 (kicked or channel deleted, which the
 * bot's voice state update says first).
 */
const DO_NOT_RECONNECT = new Map<number, string>([
  [4021, 'Discord rate-limited the bot’s voice connections'],
  [4022, 'Discord terminated the call'],
]);
/**
 * @discordjs/voice rejoins at once, by itself, after any close it cannot resume but 4014 (and,
 * patched, 4021 and 4022): a voice server that drops every session would make a join loop. More
 * of its own rejoins than this in {@link LIBRARY_REJOIN_WINDOW_MS} hand the link back as lost,
 * to the bot's rejoins, which back off and stop after a cap (links.ts).
 */
const LIBRARY_REJOIN_CAP = 2;
const LIBRARY_REJOIN_WINDOW_MS = 5 * 60_000;
/** Discord closed a voice connection being made with a code that says not to reconnect. */
export class DoNotReconnectError extends Error {
  constructor(readonly reason: string) {
    super(`Discord refused the voice connection (${reason})`);
  }
}

/** A subscription ends after this much silence and is renewed on the next speech. */
const SUBSCRIPTION_SILENCE_MS = 1_000;
/**
 * @discordjs/voice says a user stopped speaking after 100 ms without a packet: jitter, a lost
 * burst or a stalled event loop mid-sentence (its timer fires before the packets queued behind
 * the stall are read). The stop (which asks the provider for the final) waits this long for
 * the speech to go on, so that one sentence stays one line.
 */
const SPEAKING_END_GRACE_MS = 400;

/**
 * A DAVE frame the library could not decrypt and passed on as it came: it ends in DAVE's
 * supplemental data (its size, then the 0xFAFA magic marker). After a transition the client
 * missed (its session reinitialising, not ready) @discordjs/voice returns such frames as if
 * they were Opus; the decoder makes noise of them. They are dropped instead, so that a member
 * speaking with nothing decrypting is what the watchdog sees.
 */
export function isUndecryptedDaveFrame(packet: Buffer): boolean {
  const n = packet.length;
  if (n < 13 || packet[n - 1] !== 0xfa || packet[n - 2] !== 0xfa) return false;
  const supplemental = packet[n - 3]!;
  return supplemental >= 11 && supplemental <= n;
}

/**
 * The real receiver: @discordjs/voice 0.19 (DAVE through @snazzah/davey). One subscription per
 * speaking user, ended after a second of silence and renewed on the next speaking start.
 */
export function discordVoiceReceiver(logger: Logger): VoiceReceiver {
  return {
    async connect(guild, channelId, handlers) {
      let released = false;
      const connection: VoiceConnection = joinVoiceChannel({
        guildId: guild.id,
        channelId,
        // The gateway as the library sees it, less its voice state updates while released.
        adapterCreator: (methods) => {
          const adapter = guild.voiceAdapterCreator(methods);
          return { ...adapter, sendPayload: (payload) => !released && adapter.sendPayload(payload) };
        },
        selfDeaf: false,
        selfMute: true,
        daveEncryption: true,
      });
      const log = logger.child({ guildId: guild.id, channelId });
      connection.on('error', (err) => log.warn({ err }, 'voice connection error'));
      // Members talking as the bot connects get no Speaking op from Discord (unannounced.ts).
      const stopInferring = hearUnannounced(connection, guild.client.user?.id, log);
      // A close that says "do not reconnect" while connecting (a join past Discord's rate
      // limit is answered with 4021) ends the attempt at once, and says so.
      let refused: string | null = null;
      const giveUp = new AbortController();
      const readyTimer = setTimeout(() => giveUp.abort(), READY_TIMEOUT_MS);
      const onEarlyClose = (_old: unknown, state: { reason?: unknown; closeCode?: number }): void => {
        const why =
          state.reason === VoiceConnectionDisconnectReason.WebSocketClose
            ? DO_NOT_RECONNECT.get(state.closeCode ?? 0)
            : undefined;
        if (why) {
          refused = `${state.closeCode}: ${why}`;
          giveUp.abort();
        }
      };
      connection.on(VoiceConnectionStatus.Disconnected, onEarlyClose);
      try {
        await entersState(connection, VoiceConnectionStatus.Ready, giveUp.signal);
      } catch (err) {
        stopInferring();
        if (connection.state.status !== VoiceConnectionStatus.Destroyed) connection.destroy();
        if (refused) throw new DoNotReconnectError(refused);
        throw new Error(`Could not connect to the voice channel within ${READY_TIMEOUT_MS / 1000} s`, {
          cause: err,
        });
      } finally {
        clearTimeout(readyTimer);
        connection.off(VoiceConnectionStatus.Disconnected, onEarlyClose);
      }
      const subscriptions = new Map<string, AudioReceiveStream>();
      let closing = false;
      const receiver = connection.receiver;
      const ending = new Map<string, NodeJS.Timeout>();
      const onStart = (userId: string): void => {
        const pendingEnd = ending.get(userId);
        if (pendingEnd) {
          clearTimeout(pendingEnd);
          ending.delete(userId);
        } else {
          handlers.speakingStart(userId);
        }
        subscribe(userId);
      };
      const subscribe = (userId: string): void => {
        if (closing || subscriptions.has(userId)) return;
        const stream = receiver.subscribe(userId, {
          end: { behavior: EndBehaviorType.AfterSilence, duration: SUBSCRIPTION_SILENCE_MS },
        });
        subscriptions.set(userId, stream);
        stream.on('data', (packet: Buffer) => {
          if (!isUndecryptedDaveFrame(packet)) handlers.opus(userId, packet);
        });
        // The library ends a subscription after a second without a packet other than Opus's
        // silence frame, while it counts any packet, silence frames too, as speech: and it
        // hands packets only to a subscription, and says `start` only after 100 ms without
        // one. So a subscription that closes while its user still speaks (a second of silence
        // frames, or a stalled event loop) is renewed here, or the rest of the line is dropped.
        stream.once('close', () => {
          if (subscriptions.get(userId) !== stream) return;
          subscriptions.delete(userId);
          if (receiver.speaking.users.has(userId)) subscribe(userId);
        });
        stream.on('error', (err) => log.debug({ err, userId }, 'receive stream error'));
      };
      const onEnd = (userId: string): void => {
        clearTimeout(ending.get(userId));
        ending.set(
          userId,
          setTimeout(() => {
            ending.delete(userId);
            handlers.speakingStop(userId);
          }, SPEAKING_END_GRACE_MS),
        );
      };
      receiver.speaking.on('start', onStart);
      receiver.speaking.on('end', onEnd);
      const libraryRejoins: number[] = [];
      connection.on('stateChange', (old, next) => {
        if (closing || next.status !== VoiceConnectionStatus.Signalling) return;
        if (old.status === VoiceConnectionStatus.Signalling) return;
        const now = Date.now();
        libraryRejoins.push(now);
        while (libraryRejoins[0]! < now - LIBRARY_REJOIN_WINDOW_MS) libraryRejoins.shift();
        if (libraryRejoins.length <= LIBRARY_REJOIN_CAP) return;
        closing = true;
        // After the library's call that set this state returns: it still sends its rejoin.
        queueMicrotask(() => {
          if (connection.state.status !== VoiceConnectionStatus.Destroyed) connection.destroy();
          handlers.lost(`Discord dropped the voice connection ${libraryRejoins.length} times`);
        });
      });
      // A disconnect that does not recover within 5 s (moved, kicked, voice server gone) is lost.
      connection.on(VoiceConnectionStatus.Disconnected, (_old, state) => {
        if (closing) return;
        const code = state.reason === VoiceConnectionDisconnectReason.WebSocketClose ? state.closeCode : 0;
        const doNotReconnect = DO_NOT_RECONNECT.get(code);
        if (doNotReconnect) {
          // Discord says not to come back (the patched library no longer rejoins at once).
          closing = true;
          connection.destroy();
          handlers.lost(`${code}: ${doNotReconnect}`, { final: true });
          return;
        }
        void Promise.race([
          entersState(connection, VoiceConnectionStatus.Signalling, 5_000),
          entersState(connection, VoiceConnectionStatus.Connecting, 5_000),
        ]).catch(() => {
          if (closing) return;
          closing = true;
          connection.destroy();
          handlers.lost('disconnected from the voice channel');
        });
      });
      connection.on(VoiceConnectionStatus.Destroyed, () => {
        if (!closing) {
          closing = true;
          handlers.lost('voice connection destroyed');
        }
      });
      return {
        guildId: guild.id,
        // Where the connection is now: a moderator's move changes it (addStatePacket).
        get channelId() {
          return connection.joinConfig.channelId ?? channelId;
        },
        release(on) {
          released = on;
        },
        async close(opts = {}) {
          closing = true;
          stopInferring();
          receiver.speaking.off('start', onStart);
          receiver.speaking.off('end', onEnd);
          for (const t of ending.values()) clearTimeout(t);
          ending.clear();
          for (const s of subscriptions.values()) s.destroy();
          subscriptions.clear();
          if (opts.stay) {
            // Drops the voice link but not the channel membership; the rejoin that follows
            // signals again and gets a fresh voice (and DAVE) session.
            connection.destroy(false);
          } else if (connection.state.status !== VoiceConnectionStatus.Destroyed) {
            connection.destroy();
          }
        },
      };
    },
  };
}
