import { speak, SPEAKER_VOICES, toDiscordPcm, type Turn } from '@chronicler/voice-bot/pipeline';
import { setTimeout as delay } from 'node:timers/promises';
import type { DiscordPeer } from '../discord.ts';
import { joinVoiceAsMember, type VoiceMember } from './member.ts';

/** A turn with its speech synthesized (48 kHz stereo PCM), ready to play. */
interface SpokenTurn extends Turn {
  pcm: Buffer;
}

/**
 * The people at a voice channel, each a real @discordjs/voice client (see member.ts): tests join
 * them, then play a script of turns, one after another or overlapping. A speaker's key is their
 * Discord user id; each speaker gets one espeak-ng voice, in order of first appearance.
 */
export interface VoiceTable {
  join(userId: string): Promise<VoiceMember>;
  member(userId: string): VoiceMember;
  /** Synthesizes the turns' speech (in parallel), so that playing them is not held up by espeak. */
  prepare(turns: Turn[]): Promise<SpokenTurn[]>;
  /** Plays the turns in order with a pause between; each waits for the previous to finish. */
  play(turns: (Turn | SpokenTurn)[], opts?: { pauseSeconds?: number; signal?: AbortSignal }): Promise<void>;
  leave(userId: string): Promise<void>;
  close(): Promise<void>;
}

export function voiceTable(
  discord: DiscordPeer,
  guildId: string,
  channelId: string,
  opts: { dave?: boolean } = {},
): VoiceTable {
  const members = new Map<string, VoiceMember>();
  const voices = new Map<string, string>();
  const voiceOf = (userId: string): string => {
    let v = voices.get(userId);
    if (!v) voices.set(userId, (v = SPEAKER_VOICES[voices.size % SPEAKER_VOICES.length]!));
    return v;
  };
  const table: VoiceTable = {
    async join(userId) {
      const existing = members.get(userId);
      if (existing) return existing;
      const m = await joinVoiceAsMember(discord, guildId, channelId, userId, {
        voice: voiceOf(userId),
        dave: opts.dave,
      });
      members.set(userId, m);
      return m;
    },
    member(userId) {
      const m = members.get(userId);
      if (!m) throw new Error(`voice table: ${userId} has not joined`);
      return m;
    },
    async prepare(turns) {
      return Promise.all(
        turns.map(async (t) => ({
          ...t,
          pcm: toDiscordPcm(await speak(t.text, { voice: t.voice ?? voiceOf(t.speaker.key) })),
        })),
      );
    },
    async play(turns, o = {}) {
      const ready = turns.every((t) => 'pcm' in t) ? (turns as SpokenTurn[]) : await table.prepare(turns);
      for (const [i, t] of ready.entries()) {
        if (o.signal?.aborted) return;
        if (i > 0) await delay((o.pauseSeconds ?? 0.8) * 1000);
        await table.member(t.speaker.key).say(t.pcm, o.signal);
      }
    },
    async leave(userId) {
      await members.get(userId)?.leave();
      members.delete(userId);
    },
    async close() {
      for (const id of [...members.keys()]) await table.leave(id);
    },
  };
  return table;
}
