// What the tests of the voice bot as its own process need: the Discord, Deepgram and OAuth
// peers, a system with one process per service talking to them, and an owner signed in
// with Discord (the account the bot matches to the guild's owner).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDeepgramLivePeer, type DeepgramLivePeer } from '../peers/deepgram-live.ts';
import { startDiscordPeer, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
import { discordUserFor, startOAuthPeer, type OAuthPeer } from '../peers/oauth.ts';
import { setCookie } from './auth.ts';
import { freePort, startSystem, type TestSystem } from './system.ts';

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
 * in and waits until the bot has the guild. `env` is added to the services' environment.
 * `browser`: the system's PUBLIC_URL is its own address, so that a browser signing in follows
 * Discord's redirect back to it.
 */
export async function startVoiceRig(
  guild: PeerGuild,
  env: NodeJS.ProcessEnv = {},
  opts: { processes?: 'one' | 'many'; browser?: boolean } = {},
): Promise<VoiceRig> {
  if (opts.browser) {
    const port = await freePort();
    env = { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, ...env };
  }
  const discord = await startDiscordPeer();
  discord.addGuild(guild);
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
    await discord.untilGuildReady(guild.id, 60_000);
    return { system, discord, deepgram, oauth, recordings, owner, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
