import type { VoiceConnection } from '@discordjs/voice';
import type { Logger } from '@chronicler/kit';
import type { EventEmitter } from 'node:events';

/** RTP payload type of Opus on Discord (what @discordjs/voice's receiver accepts). */
const OPUS_PAYLOAD_TYPE = 120;
/** An unknown SSRC counts as sending while its last packet is younger than this. */
const ACTIVE_MS = 3_000;
/** RTP's one-byte header extension profile, which Discord's packets carry (RFC 8285). */
const HEADER_EXTENSION = Buffer.from([0xbe, 0xde]);
/** davey's MediaType.AUDIO (a const enum in its typings). */
const DAVE_AUDIO = 0;

interface Transport {
  encryptionMode?: string;
  nonceBuffer?: Buffer;
  secretKey?: Uint8Array;
}
interface DaveLike {
  session?: { ready: boolean; decrypt(userId: string, mediaType: number, packet: Buffer): Buffer };
}

/**
 * Hears members Discord never announced. @discordjs/voice maps an SSRC to a user only from the
 * Speaking op (op 5: VoiceReceiver.onWsPacket) and drops every packet of an SSRC it cannot map
 * (VoiceReceiver.onUdpMessage: `if (!userData) return`). Discord sends a user's op 5 about once,
 * and none for a member who was already speaking when the bot's voice connection came up
 * (discord.js#3524, Discord.Net#1430 and #3208): after every join, crash recovery, watchdog
 * rejoin or move into a channel where someone is mid-sentence, that member would stay unheard
 * for good. What the bot does know is who is connected: the voice gateway's Clients Connect and
 * Client Disconnect ops (11 and 13; the library keeps them as `connectionData.connectedClients`).
 *
 * In an end-to-end encrypted call (DAVE, which Discord requires of voice channels) the frame
 * itself says whose it is: each sender encrypts with their own key ratchet, so the frame of an
 * unknown SSRC decrypts with the MLS group's key for exactly one connected member (davey's
 * `decrypt(userId, ...)` fails the AEAD check for anyone else). Without DAVE, only elimination
 * is left: while exactly one SSRC is sending that nobody announced, and exactly one connected
 * member has no SSRC, that SSRC is theirs. Either way the receiver's map is told so, as op 5
 * would have (a later op 5 overrides it), and from the next packet on the member is heard.
 */
/**
 * Who sent which SSRC on a guild's voice server, as the bot's earlier connections learnt it. A
 * member's SSRC is their own connection's and outlives the bot's: after the bot rejoins the same
 * server (its watchdog, a resumed drop), a member who was talking all along is known again
 * without a Speaking op, also where elimination cannot tell. Another server (a move, a region
 * change) numbers its SSRCs afresh, so it is forgotten then. Bounded per guild and in guilds
 * (below), the oldest forgotten first: one shard serves thousands of guilds for months.
 */
const earlier = new Map<string, { endpoint: string; users: Map<number, string> }>();
/** Guilds remembered at most, the least recently heard forgotten first (a shard serves thousands). */
const EARLIER_GUILDS_MAX = 5_000;
/** SSRCs remembered per guild at most, the oldest forgotten first (each connection gets a new one). */
const EARLIER_SSRCS_MAX = 100;

/** Sets `key` as the newest entry of an insertion-ordered map bounded to `max` entries. */
function touch<K, V>(m: Map<K, V>, key: K, value: V, max: number): void {
  m.delete(key);
  m.set(key, value);
  if (m.size > max) m.delete(m.keys().next().value!);
}

export function hearUnannounced(
  connection: VoiceConnection,
  selfId: string | undefined,
  log: Logger,
): () => void {
  const map = connection.receiver.ssrcMap;
  const unknown = new Map<number, number>();
  const watched = new WeakSet<object>();
  let udp: EventEmitter | undefined;

  const networking = (): { state: object } | undefined =>
    Reflect.get(connection.state, 'networking') as { state: object } | undefined;
  const connected = (): string[] => {
    const data = Reflect.get(networking()?.state ?? {}, 'connectionData') as
      { connectedClients?: Set<string> } | undefined;
    return [...(data?.connectedClients ?? [])].filter((id) => id !== selfId);
  };

  const guildId = connection.joinConfig.guildId;
  const endpoint = (): string | undefined => {
    const options = Reflect.get(networking()?.state ?? {}, 'connectionOptions') as
      { endpoint?: string } | undefined;
    return options?.endpoint;
  };
  let mine: { endpoint: string; users: Map<number, string> } | undefined;
  const remembered = (): Map<number, string> | undefined => {
    const at = endpoint();
    if (!at) return undefined;
    let known = earlier.get(guildId);
    // Per packet: the map is reordered only when this connection first asks (or was forgotten).
    if (known && known === mine && known.endpoint === at) return known.users;
    if (known?.endpoint !== at) known = { endpoint: at, users: new Map() };
    touch(earlier, guildId, known, EARLIER_GUILDS_MAX);
    mine = known;
    return known.users;
  };

  const onMessage = (msg: Buffer): void => {
    if (msg.length <= 12 || msg[0]! >> 6 !== 2 || (msg[1]! & 0x7f) !== OPUS_PAYLOAD_TYPE) return;
    const ssrc = msg.readUInt32BE(8);
    const mapped = map.get(ssrc);
    if (mapped) {
      unknown.delete(ssrc);
      const users = remembered();
      if (users && users.get(ssrc) !== mapped.userId) touch(users, ssrc, mapped.userId, EARLIER_SSRCS_MAX);
      return;
    }
    const now = Date.now();
    unknown.set(ssrc, now);
    for (const [s, at] of unknown) if (now - at > ACTIVE_MS) unknown.delete(s);
    const unmapped = connected().filter((id) => !map.get(id));
    if (unmapped.length === 0) return;
    const dave = Reflect.get(networking()?.state ?? {}, 'dave') as DaveLike | undefined;
    let userId: string | undefined;
    let how = 'its DAVE frame';
    const before = remembered()?.get(ssrc);
    if (before && unmapped.includes(before)) {
      userId = before;
      how = "the bot's earlier connection to this voice server";
    } else if (dave?.session?.ready) {
      userId = whoseFrame(msg, dave.session, unmapped);
    } else if (unknown.size === 1 && unmapped.length === 1) {
      userId = unmapped[0]!;
      how = 'elimination';
    }
    if (!userId) return;
    unknown.delete(ssrc);
    log.info({ userId, ssrc }, `voice: a member speaking without a Speaking op, known by ${how}`);
    map.update({ userId, audioSSRC: ssrc });
  };

  /** The member whose DAVE key decrypts this packet's frame, if any of `candidates`. */
  const whoseFrame = (msg: Buffer, session: NonNullable<DaveLike['session']>, candidates: string[]) => {
    const receiver = connection.receiver as unknown as {
      connectionData: Transport;
      decrypt(buffer: Buffer, mode: string, nonce: Buffer, key: Uint8Array): Buffer;
    };
    const { encryptionMode, nonceBuffer, secretKey } = receiver.connectionData;
    if (!encryptionMode || !nonceBuffer || !secretKey) return undefined;
    let frame: Buffer;
    try {
      // The transport layer as VoiceReceiver.parsePacket peels it (its decrypt, then the
      // padding and the header extension), without its DAVE step, which counts failures.
      frame = receiver.decrypt(msg, encryptionMode, nonceBuffer, secretKey);
      if (msg[0]! & 0x20) {
        const padding = frame[frame.length - 1]!;
        if (padding < frame.length) frame = frame.subarray(0, frame.length - padding);
      }
      if (msg.subarray(12, 14).equals(HEADER_EXTENSION)) frame = frame.subarray(4 * msg.readUInt16BE(14));
    } catch {
      return undefined;
    }
    // Only a real DAVE frame (ending in its 0xFAFA magic marker) tells: a passthrough decryptor
    // would take a plain Opus frame from anyone.
    if (frame.length < 3 || frame[frame.length - 1] !== 0xfa || frame[frame.length - 2] !== 0xfa)
      return undefined;
    return candidates.find((id) => {
      try {
        session.decrypt(id, DAVE_AUDIO, Buffer.from(frame));
        return true;
      } catch {
        return false;
      }
    });
  };

  // The UDP socket changes with each voice (re)connection; the receiver's own listener moves
  // with it (VoiceConnection.onNetworkingStateChange), this one too.
  const attach = (): void => {
    const n = networking();
    if (n && !watched.has(n)) {
      watched.add(n);
      (n as unknown as EventEmitter).on('stateChange', attach);
    }
    const next = n ? (Reflect.get(n.state, 'udp') as EventEmitter | undefined) : undefined;
    if (next === udp) return;
    udp?.off('message', onMessage);
    udp = next;
    udp?.on('message', onMessage);
  };
  connection.on('stateChange', attach);
  attach();
  return () => {
    connection.off('stateChange', attach);
    udp?.off('message', onMessage);
    udp = undefined;
  };
}
