// One side of `pnpm bench voice`, as a process of its own so that its CPU and memory are its
// own (started by voice.ts with the IPC channel): a discord.js client logged in to the Discord
// peer, in one guild's voice channel, receiving its members' speech.
//   VOICE_BENCH_ROLE=chronicler: the bot's receive path, unchanged: discordVoiceReceiver
//     (@discordjs/voice, DAVE), a LiveSession per recording (Opus decode, 48 -> 16 kHz, an Ogg
//     file per speaker flushed every second, a Deepgram stream per speaker to the peer).
//   VOICE_BENCH_ROLE=bare: @discordjs/voice alone, a subscription per speaker and an Opus
//     decode of each packet (the same decoder), nothing kept.
// Messages: 'join' -> 'joined'; 'mark' (start of the window); 'measure' -> the CPU and
// packets since 'mark', and the memory V8 accounts (heap + external, after a full GC); 'leave'
// -> the recording ended, the channel left, and that memory again: what the recording held is
// the difference.
import { createBus, createLogger } from '@chronicler/kit';
import { deepgramLiveProvider } from '@chronicler/speech';
import { discordVoiceReceiver } from '@chronicler/voice-bot';
import { LiveSession, OpusPacketDecoder } from '@chronicler/voice-bot/pipeline';
import { EndBehaviorType, entersState, joinVoiceChannel, VoiceConnectionStatus } from '@discordjs/voice';
import { Client, Events, GatewayIntentBits } from 'discord.js';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const role = env('VOICE_BENCH_ROLE') as 'chronicler' | 'bare';
const guildId = env('VOICE_BENCH_GUILD');
const channelId = env('VOICE_BENCH_CHANNEL');
const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const send = (m: object): void => void process.send!(m);

const client = new Client({
  intents: [GatewayIntentBits.Guilds, GatewayIntentBits.GuildVoiceStates],
  shards: [0],
  shardCount: 1,
  rest: { api: env('DISCORD_API_URL') },
});
const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
await client.login(env('DISCORD_BOT_TOKEN'));
await ready;
for (let i = 0; !client.guilds.cache.get(guildId)?.available; i++) {
  if (i > 300) throw new Error('the guild never became available');
  await new Promise((r) => setTimeout(r, 100));
}
const guild = client.guilds.cache.get(guildId)!;

let packets = 0;
let cpuAt = process.cpuUsage();
let packetsAt = 0;
let wallAt = performance.now();
const recordings = mkdtempSync(path.join(os.tmpdir(), 'chronicler-bench-voice-'));
const logger = createLogger(null, { level: 'warn' });
let stop: (() => Promise<void>) | null = null;

async function joinAsChronicler(): Promise<() => Promise<void>> {
  const bus = await createBus({ prefix: 'bench', name: 'bench', logger });
  const live = new LiveSession({
    bus,
    transcriptId: randomUUID(),
    ownerId: 'bench',
    origin: 'discord',
    provider: deepgramLiveProvider({
      apiKey: env('DEEPGRAM_API_KEY'),
      baseUrl: env('DEEPGRAM_API_URL'),
      model: 'nova-3',
    }),
    gate: null,
    keyterms: [],
    recordingsDir: recordings,
    logger,
  });
  await live.start();
  const link = await discordVoiceReceiver(logger).connect(guild, channelId, {
    speakingStart: () => {},
    speakingStop: (userId) => live.speakerStopped(userId),
    opus: (userId, packet) => {
      packets++;
      live.pushOpus({ key: userId, displayName: userId, userId }, packet);
    },
    lost: (reason) => logger.warn({ reason }, 'bench: voice link lost'),
  });
  return async () => {
    await link.close();
    await live.end();
    await bus.close();
  };
}

async function joinBare(): Promise<() => Promise<void>> {
  const connection = joinVoiceChannel({
    guildId,
    channelId,
    adapterCreator: guild.voiceAdapterCreator,
    selfDeaf: false,
    selfMute: true,
    daveEncryption: true,
  });
  await entersState(connection, VoiceConnectionStatus.Ready, 60_000);
  const decoders = new Map<string, OpusPacketDecoder>();
  connection.receiver.speaking.on('start', (userId) => {
    if (decoders.has(userId)) return;
    const decoder = new OpusPacketDecoder();
    decoders.set(userId, decoder);
    const stream = connection.receiver.subscribe(userId, {
      end: { behavior: EndBehaviorType.AfterSilence, duration: 1000 },
    });
    stream.on('data', (packet: Buffer) => {
      packets++;
      decoder.decode(packet);
    });
    stream.once('close', () => {
      decoder.destroy();
      decoders.delete(userId);
    });
  });
  return async () => {
    connection.destroy();
  };
}

/** Heap and external memory (Opus decoders' WebAssembly heaps, buffers) after a full GC. */
function accounted(): number {
  gc();
  gc();
  const mem = process.memoryUsage();
  return mem.heapUsed + mem.external;
}

process.on('message', (m: { type: string }) => {
  void (async () => {
    if (m.type === 'join') {
      stop = role === 'chronicler' ? await joinAsChronicler() : await joinBare();
      send({ type: 'joined' });
    } else if (m.type === 'mark') {
      cpuAt = process.cpuUsage();
      packetsAt = packets;
      wallAt = performance.now();
    } else if (m.type === 'measure') {
      const cpu = process.cpuUsage(cpuAt);
      const wallMs = performance.now() - wallAt;
      const received = packets - packetsAt;
      send({
        type: 'measured',
        cpuMs: (cpu.user + cpu.system) / 1000,
        wallMs,
        packets: received,
        memory: accounted(),
      });
    } else if (m.type === 'leave') {
      await stop?.();
      stop = null;
      // Timers and sockets of the ended recording close over the next moments.
      await new Promise((r) => setTimeout(r, 2000));
      send({ type: 'left', memory: accounted() });
    } else if (m.type === 'quit') {
      await stop?.().catch(() => undefined);
      await client.destroy();
      rmSync(recordings, { recursive: true, force: true });
      process.exit(0);
    }
  })().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
});
send({ type: 'ready' });
