import {
  LIVE_INGEST_KEY_FILE,
  liveMsgId,
  liveSubject,
  type LiveSessionEnd,
  type LiveSessionStart,
  type LiveUtterance,
} from '@chronicler/contracts';
import type { Bus } from '@chronicler/kit';
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export type ReplayUtterance = Omit<LiveUtterance, 'transcript_id'> & { is_final: boolean };

/** Where a replay publishes: straight onto the bus, or through a gateway's ingest entry. */
export interface LiveSink {
  start(s: {
    owner_id: string;
    name?: string;
    group_id?: string;
  }): Promise<{ transcriptId: string; startedAt: string }>;
  send(transcriptId: string, utterances: ReplayUtterance[]): Promise<void>;
  end(transcriptId: string, e: { final_count: number; interim_count: number; error?: string }): Promise<void>;
  close(): Promise<void>;
}

/**
 * Publishes exactly as the live pipeline does after speech-to-text: the start and finals
 * durably with their message ids, interims fire-and-forget.
 */
export function busSink(bus: Bus, opts: { closeBus?: boolean } = {}): LiveSink {
  return {
    async start(s) {
      const start: LiveSessionStart = {
        transcript_id: randomUUID(),
        owner_id: s.owner_id,
        ...(s.name ? { name: s.name } : {}),
        ...(s.group_id ? { group_id: s.group_id } : {}),
        started_at: new Date().toISOString(),
        origin: 'replay',
      };
      await bus.publishDurable(liveSubject.start(start.transcript_id), start, {
        msgId: liveMsgId.start(start.transcript_id),
      });
      return { transcriptId: start.transcript_id, startedAt: start.started_at };
    },
    async send(transcriptId, utterances) {
      for (const { is_final: isFinal, ...rest } of utterances) {
        const u: LiveUtterance = { ...rest, transcript_id: transcriptId };
        if (isFinal) {
          await bus.publishDurable(liveSubject.final(transcriptId), u, {
            msgId: liveMsgId.final(transcriptId, u.utterance_id),
          });
        } else {
          await bus.publish(liveSubject.interim(transcriptId), u);
        }
      }
    },
    async end(transcriptId, e) {
      const end: LiveSessionEnd = { transcript_id: transcriptId, ended_at: new Date().toISOString(), ...e };
      await bus.publishDurable(liveSubject.end(transcriptId), end, { msgId: liveMsgId.end(transcriptId) });
    },
    async close() {
      if (opts.closeBus) await bus.close();
    },
  };
}

/** How an HTTP sink retries a refused or failed request. */
export interface HttpSinkOptions {
  /** Tries of one request in all (default 8). */
  attempts?: number;
  /** First back-off (ms, default 250), doubled each try up to maxBackoffMs, or Retry-After when sent. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

/** Answers worth another try: the server is busy or briefly away, not refusing this request. */
const RETRIED = new Set([429, 502, 503, 504]);

/**
 * Through a running gateway's /api/live-ingest, authenticated with the machine key (the
 * embedded system's DATA_DIR/live-ingest.key) or an admin's token. A 429 or 503 (and a
 * connection that failed) is tried again after the server's Retry-After, else a back-off
 * doubling from backoffMs: the writes are idempotent (a final by its utterance id, the end by
 * the session's id), so a request that did arrive before its answer was lost counts once.
 */
export function httpSink(baseUrl: string, credential: string, opts: HttpSinkOptions = {}): LiveSink {
  const attempts = Math.max(1, opts.attempts ?? 8);
  const backoffMs = opts.backoffMs ?? 250;
  const maxBackoffMs = opts.maxBackoffMs ?? 10_000;
  const tokens = new Map<string, string>();
  const post = async <T>(p: string, body: unknown): Promise<T> => {
    for (let attempt = 1; ; attempt++) {
      let failure: string;
      let waitMs = Math.min(maxBackoffMs, backoffMs * 2 ** (attempt - 1));
      try {
        const res = await fetch(new URL(`/api/live-ingest${p}`, baseUrl), {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
          body: JSON.stringify(body),
        });
        const text = await res.text();
        if (res.ok) return JSON.parse(text) as T;
        failure = `POST /api/live-ingest${p}: ${res.status} ${text}`;
        if (!RETRIED.has(res.status)) throw new Error(failure);
        const after = Number(res.headers.get('retry-after'));
        if (Number.isFinite(after) && after > 0) waitMs = Math.min(maxBackoffMs, after * 1000);
      } catch (err) {
        // A refusal that no retry changes, or the last try: the caller ends the session.
        if (err instanceof Error && err.message.startsWith('POST /api/live-ingest')) throw err;
        failure = `POST /api/live-ingest${p}: ${err instanceof Error ? err.message : String(err)}`;
      }
      if (attempt >= attempts) throw new Error(`${failure} (gave up after ${attempts} tries)`);
      await sleep(waitMs);
    }
  };
  return {
    async start(s) {
      const r = await post<{ transcript_id: string; started_at: string; ingest_token: string }>(
        '/sessions',
        s,
      );
      tokens.set(r.transcript_id, r.ingest_token);
      return { transcriptId: r.transcript_id, startedAt: r.started_at };
    },
    async send(transcriptId, utterances) {
      await post(`/sessions/${transcriptId}/utterances`, {
        ingest_token: tokens.get(transcriptId),
        utterances,
      });
    },
    async end(transcriptId, e) {
      await post(`/sessions/${transcriptId}/end`, { ingest_token: tokens.get(transcriptId), ...e });
      tokens.delete(transcriptId);
    },
    async close() {},
  };
}

/** The machine key an embedded system keeps in its data directory. */
export async function readMachineKey(dataDir: string): Promise<string> {
  return (await readFile(path.join(dataDir, LIVE_INGEST_KEY_FILE), 'utf8')).trim();
}
