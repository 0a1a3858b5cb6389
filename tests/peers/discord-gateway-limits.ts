/**
 * The Discord gateway's limits on what a client sends, as discord-api-docs (topics/Gateway)
 * states them:
 *
 * - Identify: `session_start_limit.max_concurrency` (GET /gateway/bot) is "the number of
 *   identify requests allowed per 5 seconds"; shards share a bucket by `shard_id %
 *   max_concurrency` ("Max Concurrency"), and an identify past the limit is answered with op 9
 *   Invalid Session ("Identifying"). discord.js paces its shards by exactly this
 *   (@discordjs/ws 1.2.3, SimpleIdentifyThrottler.waitForIdentify: `shardId %
 *   this.maxConcurrency`, 5e3 ms), within one process only.
 * - Sends: "Apps can send 120 gateway events per connection every 60 seconds"; past that the
 *   connection is closed with 4008 Rate limited ("Rate Limiting"; Gateway Close Event Codes).
 *   Voice state updates (op 4), the bot's joins and leaves, count among them. discord.js keeps
 *   below it (@discordjs/ws 1.2.3, WebSocketShard.send: sleeps at 115 sends in its 60 s
 *   window, heartbeats, identifies and resumes exempt), and @discordjs/voice's op 4 goes
 *   through it (the guild's voiceAdapterCreator sends on the guild's shard).
 */

const IDENTIFY_WINDOW_MS = 5_000;
export const SENDS_PER_MINUTE = 120;

export class IdentifyBuckets {
  private readonly last = new Map<number, number>();
  /** Identifies refused (answered with op 9), by shard id, in order. */
  readonly refused: number[] = [];

  /** Whether shard `shardId` may identify now; records it when it may. */
  allow(shardId: number, maxConcurrency: number, now = Date.now()): boolean {
    const key = shardId % maxConcurrency;
    const at = this.last.get(key);
    if (at !== undefined && now - at < IDENTIFY_WINDOW_MS) {
      this.refused.push(shardId);
      return false;
    }
    this.last.set(key, now);
    return true;
  }
}

/** A connection's sends in the current 60 s window: `count()` is false once past the limit. */
export function sendWindow(limit: () => number): { count(now?: number): boolean } {
  let start = Date.now();
  let sent = 0;
  return {
    count(now = Date.now()) {
      if (now - start >= 60_000) {
        start = now;
        sent = 0;
      }
      sent++;
      return sent <= limit();
    },
  };
}
