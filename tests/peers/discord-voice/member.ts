import { speak, toDiscordPcm } from '@chronicler/voice-bot/pipeline';
import {
  AudioPlayerStatus,
  createAudioPlayer,
  createAudioResource,
  entersState,
  joinVoiceChannel,
  NoSubscriberBehavior,
  StreamType,
  VoiceConnectionStatus,
  type VoiceConnection,
} from '@discordjs/voice';
import { Readable } from 'node:stream';
import type { DiscordPeer } from '../discord.ts';

/**
 * A simulated member as a real Discord client: their own @discordjs/voice connection (own
 * gateway adapter into the peer, own user id) in the channel, playing espeak-ng speech through an
 * AudioPlayer, so that the library itself Opus-encodes, packetises (RTP), encrypts and sends it,
 * with its Speaking op and its trailing silence frames.
 */
export interface VoiceMember {
  readonly userId: string;
  readonly connection: VoiceConnection;
  /** 48 kHz stereo PCM of `text` in this member's voice (to synthesize ahead of playing). */
  speech(text: string): Promise<Buffer>;
  /** Plays speech (text, or PCM from `speech`); resolves once the player is idle again (or cut off). */
  say(what: string | Buffer, signal?: AbortSignal): Promise<void>;
  /** Leaves the channel (voice state update with no channel, then the connection is destroyed). */
  leave(): Promise<void>;
}

export async function joinVoiceAsMember(
  discord: DiscordPeer,
  guildId: string,
  channelId: string,
  userId: string,
  opts: { voice?: string; dave?: boolean } = {},
): Promise<VoiceMember> {
  const connection = joinVoiceChannel({
    guildId,
    channelId,
    // One connection per user: the library keys its connections by group and guild.
    group: `member-${userId}`,
    adapterCreator: discord.memberAdapter(guildId, userId),
    selfDeaf: true,
    selfMute: false,
    daveEncryption: opts.dave ?? false,
  });
  connection.on('error', () => {});
  // Generous: on a busy 2-core machine a TLS handshake and IP discovery can take a while.
  await entersState(connection, VoiceConnectionStatus.Ready, 60_000);
  const player = createAudioPlayer({ behaviors: { noSubscriber: NoSubscriberBehavior.Play } });
  player.on('error', () => {});
  connection.subscribe(player);
  const voice = opts.voice ?? 'en-us';
  const member: VoiceMember = {
    userId,
    connection,
    async speech(text) {
      return toDiscordPcm(await speak(text, { voice }));
    },
    async say(what, signal) {
      const pcm = typeof what === 'string' ? await member.speech(what) : what;
      // A voice server move or a resume can leave the connection signalling for a moment.
      await entersState(connection, VoiceConnectionStatus.Ready, 60_000);
      player.play(createAudioResource(Readable.from([pcm]), { inputType: StreamType.Raw }));
      const cut = (): boolean => player.stop(true);
      signal?.addEventListener('abort', cut, { once: true });
      try {
        await entersState(player, AudioPlayerStatus.Playing, 30_000);
        await entersState(player, AudioPlayerStatus.Idle, 30_000 + (pcm.length / 192_000) * 4_000);
      } finally {
        signal?.removeEventListener('abort', cut);
      }
    },
    async leave() {
      player.stop(true);
      connection.destroy();
    },
  };
  return member;
}
