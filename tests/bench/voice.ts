// `pnpm bench voice`: what one recording costs the voice bot, from which its per-pod bounds
// are derived (charts/chronicler values.yaml, voice-bot README "Capacity of one replica").
//
// For 1, 4, 8 and 16 members speaking at once (BENCH_VOICE_SPEAKERS), without and with DAVE,
// two processes (voice-receiver.ts) sit in the voice channels of two guilds of the Discord
// peer, side by side in the same run: the bot's own receive path (discordVoiceReceiver and a
// LiveSession: decode, resample, Ogg per speaker, a Deepgram stream per speaker to the peer)
// and a bare @discordjs/voice receive with an Opus decode of each packet. The members (real
// @discordjs/voice clients of this process) send the same pre-encoded speech to both guilds,
// 20 ms apart, for BENCH_VOICE_SECONDS (10) after a warm-up. Per side: CPU (user + system of
// its process) per second of one speaker's audio received, and the memory the recording holds
// (heap + external after a full GC, while it runs less after it ended). Then the marginal cost
// of one more speaker: the slope from the fewest to the most speakers.
//
// The members, the Discord peer (which relays and re-encrypts every packet, as Discord's SFU)
// and the Deepgram peer run in this process, not in the measured ones.
import { synthesizeOpus, SPEAKER_VOICES } from '@chronicler/voice-bot/pipeline';
import { fork, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDeepgramLivePeer } from '../peers/deepgram-live.ts';
import { joinVoiceAsMember, type VoiceMember } from '../peers/discord-voice/member.ts';
import { VOICE_TLS_CERT } from '../peers/discord-voice/trust.ts';
import { guildIdForShard, startDiscordPeer, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
import { printTable } from './report.ts';

const SPEAKERS = (process.env.BENCH_VOICE_SPEAKERS ?? '1,4,8,16').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_VOICE_SECONDS ?? 10);
const WARMUP_SECONDS = 3;
const MB = 1024 * 1024;
const PASSAGE =
  'The caravan reaches the river at dusk, and the scouts come back with news of a bridge that ' +
  'nobody has crossed in a hundred years. The wizard studies the runes on its stones while the ' +
  'fighter checks the ropes, and somewhere below the water something large begins to stir.';

type Side = 'chronicler' | 'bare';
interface Measured {
  cpuMs: number;
  wallMs: number;
  packets: number;
  /** Bytes the recording held. */
  held: number;
}

/** Voice channels per guild: each run gets one of its own (a fresh DAVE group, nobody left over). */
const ROOMS = 2 * SPEAKERS.length;

/** A guild with a text channel, a voice channel per run and 16 members. */
function benchGuild(salt: number): PeerGuild {
  return {
    id: guildIdForShard(0, 1, salt),
    name: `Bench ${salt}`,
    ownerId: '6000',
    channels: [
      { id: `${salt}00`, name: 'table-talk', type: 0 },
      ...Array.from({ length: ROOMS }, (_, i) => ({
        id: `${salt}${10 + i}`,
        name: `Table ${i}`,
        type: 2 as const,
      })),
    ],
    members: Array.from({ length: 16 }, (_, i) => ({
      id: String(6000 + i),
      username: `m${i}`,
      nick: `Member ${i}`,
    })),
  };
}

/** Waits until the member is a leaf of the channel's DAVE group and no transition is under way. */
async function daveSettled(discord: DiscordPeer, g: PeerGuild, room: number, userId: string): Promise<void> {
  for (let waited = 0; waited < 60_000; waited += 100) {
    const group = await discord.voice.daveRoom(g.id, g.channels[room]!.id);
    if (group?.leaves.has(userId) && !group.busy()) return;
    await sleep(100);
  }
  throw new Error(`member ${userId} never joined the DAVE group`);
}

function receiver(discord: DiscordPeer, env: Record<string, string>): Promise<ChildProcess> {
  const child = fork(fileURLToPath(new URL('./voice-receiver.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    env: { ...process.env, ...discord.env(), LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`voice receiver exited with ${code}`)));
    child.once('message', () => resolve(child));
  });
}

function ask<T>(child: ChildProcess, type: string, reply?: string): Promise<T> {
  return new Promise((resolve) => {
    if (reply) {
      const on = (m: { type: string }) => {
        if (m.type !== reply) return;
        child.off('message', on);
        resolve(m as T);
      };
      child.on('message', on);
    }
    child.send({ type });
    if (!reply) resolve(undefined as T);
  });
}

async function runOne(
  discord: DiscordPeer,
  deepgramEnv: Record<string, string>,
  guilds: Record<Side, PeerGuild>,
  speech: Buffer[][],
  n: number,
  dave: boolean,
  /** Which of the guilds' voice channels (1..ROOMS). */
  room: number,
): Promise<Record<Side, Measured>> {
  for (const g of Object.values(guilds)) {
    if (dave) discord.voice.daveGuilds.add(g.id);
    else discord.voice.daveGuilds.delete(g.id);
  }
  const sides = Object.keys(guilds) as Side[];
  const children = new Map<Side, ChildProcess>();
  const members: VoiceMember[] = [];
  try {
    for (const side of sides) {
      const g = guilds[side];
      children.set(
        side,
        await receiver(discord, {
          ...deepgramEnv,
          VOICE_BENCH_ROLE: side,
          VOICE_BENCH_GUILD: g.id,
          VOICE_BENCH_CHANNEL: g.channels[room]!.id,
        }),
      );
    }
    await Promise.all(sides.map((s) => ask(children.get(s)!, 'join', 'joined')));
    for (const side of sides) {
      const g = guilds[side];
      for (let i = 0; i < n; i++) {
        const userId = g.members[i]!.id;
        members.push(await joinVoiceAsMember(discord, g.id, g.channels[room]!.id, userId, { dave }));
        // One DAVE transition at a time: the next member joins once this one is in the group.
        if (dave) await daveSettled(discord, g, room, userId);
      }
    }
    // Everyone speaks at once, without pause: each member its voice's passage, looped.
    for (const m of members) m.connection.setSpeaking(true);
    let tick = 0;
    const timer = setInterval(() => {
      members.forEach((m, i) => {
        const packets = speech[(i % n) % speech.length]!;
        m.connection.playOpusPacket(packets[(tick + i * 37) % packets.length]!);
      });
      tick++;
    }, 20);
    await sleep(WARMUP_SECONDS * 1000);
    await Promise.all(sides.map((s) => ask(children.get(s)!, 'mark')));
    await sleep(SECONDS * 1000);
    const measured = await Promise.all(
      sides.map((s) =>
        ask<Omit<Measured, 'held'> & { memory: number }>(children.get(s)!, 'measure', 'measured'),
      ),
    );
    clearInterval(timer);
    for (const m of members.splice(0)) await m.leave().catch(() => undefined);
    const left = await Promise.all(
      sides.map((s) => ask<{ memory: number }>(children.get(s)!, 'leave', 'left')),
    );
    const result = (i: number): Measured => {
      const { cpuMs, wallMs, packets, memory } = measured[i]!;
      return { cpuMs, wallMs, packets, held: memory - left[i]!.memory };
    };
    return { chronicler: result(sides.indexOf('chronicler')), bare: result(sides.indexOf('bare')) };
  } finally {
    for (const m of members) await m.leave().catch(() => undefined);
    for (const child of children.values()) {
      const gone = new Promise((r) => child.once('exit', r));
      child.removeAllListeners('exit');
      child.send({ type: 'quit' });
      await Promise.race([gone, sleep(15_000)]);
      child.kill('SIGKILL');
    }
  }
}

export async function benchVoice(): Promise<void> {
  // @discordjs/voice dials wss:// only: this process must trust the voice server's certificate,
  // which Node reads at start. Run again under a bundle that does.
  const ca = process.env.NODE_EXTRA_CA_CERTS;
  if (!ca || !readFileSync(ca, 'utf8').includes(readFileSync(VOICE_TLS_CERT, 'utf8').trim())) {
    const discord = await startDiscordPeer();
    const trust = discord.env().NODE_EXTRA_CA_CERTS!;
    await discord.close();
    const child = fork(fileURLToPath(new URL('./run.ts', import.meta.url)), ['voice'], {
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, NODE_EXTRA_CA_CERTS: trust },
    });
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    if (code) process.exitCode = code;
    return;
  }
  const discord = await startDiscordPeer();
  const deepgram = await startDeepgramLivePeer();
  const guilds: Record<Side, PeerGuild> = { chronicler: benchGuild(71), bare: benchGuild(72) };
  for (const g of Object.values(guilds)) discord.addGuild(g);
  await discord.untilGuildReady(guilds.chronicler.id).catch(() => undefined);
  const speech = await Promise.all(
    SPEAKER_VOICES.slice(0, 4).map(async (voice) => (await synthesizeOpus(PASSAGE, { voice })).packets),
  );
  const rows: object[] = [];
  let rooms = 0;
  const marginal: object[] = [];
  const perSpeakerSecond = (m: Measured) => m.cpuMs / (m.packets * 0.02);
  /** One more speaker: CPU per second of speech and memory, from the fewest to the most speakers. */
  const slope = (a: Measured, b: Measured, speakersA: number, speakersB: number) => ({
    cpu: (b.cpuMs - a.cpuMs) / ((b.packets - a.packets) * 0.02),
    memory: (b.held - a.held) / (speakersB - speakersA),
  });
  try {
    for (const dave of [false, true]) {
      const runs = new Map<number, Record<Side, Measured>>();
      for (const n of SPEAKERS) {
        const r = await runOne(discord, deepgram.env(), guilds, speech, n, dave, ++rooms);
        runs.set(n, r);
        rows.push({
          dave: dave ? 'on' : 'off',
          speakers: n,
          'speaker-s (bot)': r.chronicler.packets * 0.02,
          'speaker-s (bare)': r.bare.packets * 0.02,
          'bot CPU ms/speaker-s': perSpeakerSecond(r.chronicler),
          'bare CPU ms/speaker-s': perSpeakerSecond(r.bare),
          'bot/bare': perSpeakerSecond(r.chronicler) / perSpeakerSecond(r.bare),
          'bot MB/recording': r.chronicler.held / MB,
          'bare MB/recording': r.bare.held / MB,
        });
        console.log(JSON.stringify(rows.at(-1)));
      }
      const [lo, hi] = [Math.min(...SPEAKERS), Math.max(...SPEAKERS)];
      if (lo === hi) continue;
      const bot = slope(runs.get(lo)!.chronicler, runs.get(hi)!.chronicler, lo, hi);
      const bare = slope(runs.get(lo)!.bare, runs.get(hi)!.bare, lo, hi);
      marginal.push({
        dave: dave ? 'on' : 'off',
        'bot CPU ms/speaker-s': bot.cpu,
        'bare CPU ms/speaker-s': bare.cpu,
        'bot/bare': bot.cpu / bare.cpu,
        'bot MB/speaker': bot.memory / MB,
        'bare MB/speaker': bare.memory / MB,
      });
    }
  } finally {
    await deepgram.close();
    await discord.close();
  }
  printTable(
    `Voice receive per recording, ${SECONDS} s of everyone speaking at once (bot: discordVoiceReceiver + LiveSession; bare: @discordjs/voice + Opus decode)`,
    rows,
  );
  if (marginal.length)
    printTable(`One more speaker (from ${Math.min(...SPEAKERS)} to ${Math.max(...SPEAKERS)})`, marginal);
}
