import {
  EndBehaviorType,
  entersState,
  joinVoiceChannel,
  VoiceConnectionStatus,
  type AudioReceiveStream,
  type VoiceConnection,
} from '@discordjs/voice';
import type { Logger } from '@chronicler/kit';
import type { Guild } from 'discord.js';
import http from 'node:http';

/**
 * Voice receive behind a small interface: speaking start/stop and per-speaker Opus frames in.
 * The bot's session logic (who is recorded, the watchdog, the live pipeline) sits on top of
 * it and never touches @discordjs/voice, so it is tested with synthesized frames.
 */
export interface VoiceHandlers {
  speakingStart(userId: string): void;
  speakingStop(userId: string): void;
  /** One 20 ms Opus packet (48 kHz stereo) of a user, decrypted. */
  opus(userId: string, packet: Buffer): void;
  /** The link dropped and will not come back by itself (kicked, channel deleted, gave up). */
  lost(reason: string): void;
}

export interface VoiceLink {
  readonly guildId: string;
  readonly channelId: string;
  /** Leaves the channel (or only drops the link, with `{ stay: true }`, before a rejoin). */
  close(opts?: { stay?: boolean }): Promise<void>;
}

export interface VoiceReceiver {
  readonly kind: 'discord' | 'peer';
  connect(guild: Guild, channelId: string, handlers: VoiceHandlers): Promise<VoiceLink>;
}

const READY_TIMEOUT_MS = 20_000;
/** A subscription ends after this much silence and is renewed on the next speech. */
const SUBSCRIPTION_SILENCE_MS = 1_000;

/**
 * The real receiver: @discordjs/voice 0.19 (DAVE through @snazzah/davey). One subscription per
 * speaking user, ended after a second of silence and renewed on the next speaking start.
 */
export function discordVoiceReceiver(logger: Logger): VoiceReceiver {
  return {
    kind: 'discord',
    async connect(guild, channelId, handlers) {
      const connection: VoiceConnection = joinVoiceChannel({
        guildId: guild.id,
        channelId,
        adapterCreator: guild.voiceAdapterCreator,
        selfDeaf: false,
        selfMute: true,
        daveEncryption: true,
      });
      const log = logger.child({ guildId: guild.id, channelId });
      connection.on('error', (err) => log.warn({ err }, 'voice connection error'));
      try {
        await entersState(connection, VoiceConnectionStatus.Ready, READY_TIMEOUT_MS);
      } catch (err) {
        connection.destroy();
        throw new Error(`Could not connect to the voice channel within ${READY_TIMEOUT_MS / 1000} s`, {
          cause: err,
        });
      }
      const subscriptions = new Map<string, AudioReceiveStream>();
      let closing = false;
      const receiver = connection.receiver;
      const onStart = (userId: string): void => {
        handlers.speakingStart(userId);
        if (subscriptions.has(userId)) return;
        const stream = receiver.subscribe(userId, {
          end: { behavior: EndBehaviorType.AfterSilence, duration: SUBSCRIPTION_SILENCE_MS },
        });
        subscriptions.set(userId, stream);
        stream.on('data', (packet: Buffer) => handlers.opus(userId, packet));
        const done = (): void => {
          if (subscriptions.get(userId) === stream) subscriptions.delete(userId);
        };
        stream.once('end', done);
        stream.once('close', done);
        stream.on('error', (err) => log.debug({ err, userId }, 'receive stream error'));
      };
      const onEnd = (userId: string): void => handlers.speakingStop(userId);
      receiver.speaking.on('start', onStart);
      receiver.speaking.on('end', onEnd);
      // A disconnect that does not recover within 5 s (moved, kicked, voice server gone) is lost.
      connection.on(VoiceConnectionStatus.Disconnected, () => {
        if (closing) return;
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
        channelId,
        async close(opts = {}) {
          closing = true;
          receiver.speaking.off('start', onStart);
          receiver.speaking.off('end', onEnd);
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

/**
 * Tests only: the local Discord peer's voice endpoint (tests/peers/discord.ts). The join goes
 * through the guild's real gateway adapter (the voice state update on the guild's shard, the
 * voice state and voice server updates back); the "voice server" is then an HTTP response
 * streaming JSON lines {op:'speaking', user_id, speaking} and {op:'audio', user_id, data: base64
 * Opus} (node:http only: this package has no WebSocket client of its own on Node 20).
 */
export function peerVoiceReceiver(logger: Logger): VoiceReceiver {
  return {
    kind: 'peer',
    async connect(guild, channelId, handlers) {
      let serverResolve!: (d: { token: string; endpoint: string; sessionId: string }) => void;
      const server = new Promise<{ token: string; endpoint: string; sessionId: string }>((r) => {
        serverResolve = r;
      });
      let sessionId = '';
      let pendingServer: { token: string; endpoint: string } | null = null;
      const adapter = guild.voiceAdapterCreator({
        onVoiceServerUpdate(d: { token: string; endpoint: string | null }) {
          if (!d.endpoint) return;
          pendingServer = { token: d.token, endpoint: d.endpoint };
          if (sessionId) serverResolve({ ...pendingServer, sessionId });
        },
        onVoiceStateUpdate(d: { session_id: string; channel_id: string | null }) {
          if (d.channel_id === null) return;
          sessionId = d.session_id;
          if (pendingServer) serverResolve({ ...pendingServer, sessionId });
        },
        destroy() {},
      } as never);
      const sent = adapter.sendPayload({
        op: 4,
        d: { guild_id: guild.id, channel_id: channelId, self_mute: true, self_deaf: false },
      });
      if (!sent) throw new Error('The guild’s gateway shard is not ready');
      const timeout = setTimeout(
        () => serverResolve({ token: '', endpoint: '', sessionId: '' }),
        READY_TIMEOUT_MS,
      );
      const info = await server;
      clearTimeout(timeout);
      if (!info.endpoint) {
        adapter.destroy();
        throw new Error(`Could not connect to the voice channel within ${READY_TIMEOUT_MS / 1000} s`);
      }
      let closing = false;
      const onLine = (line: string): void => {
        let frame: { op: string; user_id: string; speaking?: boolean; data?: string };
        try {
          frame = JSON.parse(line) as typeof frame;
        } catch {
          return;
        }
        if (frame.op === 'speaking') {
          if (frame.speaking) handlers.speakingStart(frame.user_id);
          else handlers.speakingStop(frame.user_id);
        } else if (frame.op === 'audio' && frame.data) {
          handlers.opus(frame.user_id, Buffer.from(frame.data, 'base64'));
        }
      };
      const url = `http://${info.endpoint}/voice?guild_id=${guild.id}&channel_id=${channelId}&session_id=${info.sessionId}&token=${info.token}`;
      const req = http.get(url);
      await new Promise<void>((resolve, reject) => {
        req.once('error', reject);
        req.once('response', (res) => {
          if (res.statusCode !== 200) {
            reject(new Error(`voice endpoint answered ${res.statusCode}`));
            return;
          }
          let buffered = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            buffered += chunk;
            let nl: number;
            while ((nl = buffered.indexOf('\n')) >= 0) {
              onLine(buffered.slice(0, nl));
              buffered = buffered.slice(nl + 1);
            }
          });
          res.on('close', () => {
            if (closing) return;
            closing = true;
            handlers.lost('voice stream closed');
          });
          resolve();
        });
      });
      req.on('error', (err) => logger.debug({ err }, 'peer voice stream error'));
      return {
        guildId: guild.id,
        channelId,
        async close(opts = {}) {
          closing = true;
          req.destroy();
          if (!opts.stay) {
            adapter.sendPayload({
              op: 4,
              d: { guild_id: guild.id, channel_id: null, self_mute: false, self_deaf: false },
            });
          }
          adapter.destroy();
        },
      };
    },
  };
}
