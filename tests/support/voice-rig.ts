// What the tests of the voice bot as its own process need: the Discord, Deepgram and OAuth
// peers, a system with one process per service talking to them, and an owner signed in
// with Discord (the account the bot matches to the guild's owner).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AudioTrack, LiveLine } from '@chronicler/contracts';
import type { Turn } from '@chronicler/voice-bot/pipeline';
import { expect } from 'vitest';
import { startDeepgramLivePeer, type DeepgramLivePeer } from '../peers/deepgram-live.ts';
import { voiceTable, type VoiceTable } from '../peers/discord-voice/table.ts';
import { startDiscordPeer, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
import { discordUserFor, startOAuthPeer, type OAuthPeer } from '../peers/oauth.ts';
import { apiCall } from './api.ts';
import { setCookie } from './auth.ts';
import { LiveViewer } from './live-viewer.ts';
import { freePort, startSystem, waitFor, type TestSystem } from './system.ts';

export interface VoiceRig {
  system: TestSystem;
  discord: DiscordPeer;
  deepgram: DeepgramLivePeer;
  oauth: OAuthPeer;
  /** Where the bot keeps its recordings and crash journal. */
  recordings: string;
  /** The guild owner's access token. */
  owner: string;
  stop(): Promise<void>;
}

/**
 * Signs in through the OAuth peer as that Discord user and returns the access token. The
 * gateway builds the callback from PUBLIC_URL: the sign-in follows it to the system's own address.
 */
export async function signInWithDiscord(
  system: TestSystem,
  oauth: OAuthPeer,
  user: { id: string; username: string },
): Promise<string> {
  oauth.discordUser = discordUserFor(user);
  const get = (u: string) => fetch(u, { redirect: 'manual' });
  const { login_url } = (await (await get(`${system.url}/api/auth/discord/login`)).json()) as {
    login_url: string;
  };
  const consent = await get(login_url);
  const cb = new URL(consent.headers.get('location')!);
  const callback = await get(`${system.url}${cb.pathname}${cb.search}`);
  const cookie = setCookie(callback, 'access_token');
  if (!cookie) throw new Error(`no access_token for ${user.username}`);
  return cookie.value;
}

/**
 * Starts the peers and the system (`processes: 'many'` unless told), signs the guild's owner
 * in and waits until the bot has the guild (and the `others`, guilds of the same bot, e.g. two
 * tables at once). `env` is added to the services' environment.
 * `browser`: the system's PUBLIC_URL is its own address, so that a browser signing in follows
 * Discord's redirect back to it.
 */
export async function startVoiceRig(
  guild: PeerGuild,
  env: NodeJS.ProcessEnv = {},
  opts: { processes?: 'one' | 'many'; browser?: boolean; others?: PeerGuild[] } = {},
): Promise<VoiceRig> {
  if (opts.browser) {
    const port = await freePort();
    env = { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, ...env };
  }
  const discord = await startDiscordPeer();
  for (const g of [guild, ...(opts.others ?? [])]) discord.addGuild(g);
  const deepgram = await startDeepgramLivePeer({ silenceMs: 600 });
  const oauth = await startOAuthPeer();
  const recordings = mkdtempSync(path.join(os.tmpdir(), 'chronicler-voice-rec-'));
  let system: TestSystem | undefined;
  const stop = async () => {
    await system?.stop();
    await discord.close();
    await deepgram.close();
    await oauth.close();
    rmSync(recordings, { recursive: true, force: true });
  };
  try {
    system = await startSystem({
      processes: opts.processes ?? 'many',
      env: {
        ...oauth.env('discord'),
        ...deepgram.env(),
        ...discord.env(),
        // The address users reach; this system's own port is picked by startSystem.
        PUBLIC_URL: 'http://chronicler.test',
        RECORDINGS_DIR: recordings,
        ...env,
      },
    });
    const ownerMember = guild.members.find((m) => m.id === guild.ownerId)!;
    const owner = await signInWithDiscord(system, oauth, {
      id: ownerMember.id,
      username: ownerMember.username,
    });
    for (const g of [guild, ...(opts.others ?? [])]) await discord.untilGuildReady(g.id, 60_000);
    return { system, discord, deepgram, oauth, recordings, owner, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The id of the session a bot's reply links to (`…/sessions/<id>`); throws when it links none. */
export function sessionIdIn(content: string): string {
  const tid = /sessions\/([0-9a-f-]{36})/.exec(content)?.[1];
  if (!tid) throw new Error(`no session in: ${content}`);
  return tid;
}

/** Waits for the bot's commands, then seats these members in the voice channel (real @discordjs/voice clients). */
export async function seatTable(
  rig: VoiceRig,
  guildId: string,
  voiceChannelId: string,
  memberIds: string[],
): Promise<VoiceTable> {
  await waitFor(() => rig.discord.commands.has('global'), 30_000);
  const table = voiceTable(rig.discord, guildId, voiceChannelId);
  for (const id of memberIds) await table.join(id);
  return table;
}

/**
 * One recorded session: `/start` in the text channel by `by`, the turns spoken (a pause of
 * `pauseSeconds` between them), a live line for each seen by the owner's viewer, then `/stop`
 * and the session's end. Its id, the lines as the viewer saw them, and the speech played.
 */
export async function recordSession(
  rig: VoiceRig,
  table: VoiceTable,
  opts: {
    guildId: string;
    textChannelId: string;
    by: string;
    turns: Turn[];
    name?: string;
    pauseSeconds?: number;
  },
): Promise<{ tid: string; lines: LiveLine[]; spoken: Awaited<ReturnType<VoiceTable['prepare']>> }> {
  const { system, discord, deepgram, owner } = rig;
  const spoken = await table.prepare(opts.turns);
  deepgram.script(spoken);
  const started = await discord.command(
    opts.guildId,
    opts.textChannelId,
    opts.by,
    'start',
    opts.name === undefined ? undefined : { name: opts.name },
  );
  const tid = sessionIdIn(started.content);
  await waitFor(async () => (await apiCall(system.url, 'GET', `/transcripts/${tid}`, owner)).status === 200);
  const viewer = new LiveViewer(system.url, tid, owner);
  try {
    await table.play(spoken, { pauseSeconds: opts.pauseSeconds ?? 1.5 });
    await viewer.untilLines(opts.turns.length, 30_000);
    const stopped = await discord.command(opts.guildId, opts.textChannelId, opts.by, 'stop');
    expect(stopped.content).toContain('Recording stopped');
    await viewer.untilEnded(30_000);
    return { tid, lines: viewer.ordered(), spoken };
  } finally {
    viewer.close();
  }
}

/** The session's speaker tracks once `count` of them are kept (the bot hands them over after /stop). */
export async function keptTracks(rig: VoiceRig, tid: string, count: number): Promise<AudioTrack[]> {
  let tracks: AudioTrack[] = [];
  await waitFor(async () => {
    const res = await apiCall<AudioTrack[]>(
      rig.system.url,
      'GET',
      `/transcripts/${tid}/audio/tracks`,
      rig.owner,
    );
    tracks = res.status === 200 ? res.body : [];
    return tracks.length === count;
  }, 30_000);
  return tracks;
}
