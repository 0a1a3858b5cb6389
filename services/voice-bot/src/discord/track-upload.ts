import { keepTrackRpc, SESSION_AUDIO_BUCKET } from '@chronicler/contracts';
import { call, type Bus, type Logger } from '@chronicler/kit';
import { open, readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { readOggFile } from '../pipeline/ogg-file.ts';
import { SESSION_FILE, type SessionState } from './state.ts';

export interface TrackUploadRetry {
  /** First wait after a failure; doubled each time up to `maxMs`. */
  firstMs: number;
  maxMs: number;
}

/**
 * Hands a finished session's speaker recordings (RECORDINGS_DIR/<id>/<speaker>.ogg) to the
 * transcript service: each file is put in SESSION_AUDIO_BUCKET as `<id>/<file>`, then
 * svc.transcript.keep-track records it under the speaker's name (the file's ARTIST tag, the
 * label of their lines). The local file is removed only once the service answered; a failure
 * is retried with backoff for as long as the bot runs, and a bot that stops (or crashes)
 * before then hands the files over when it starts again (`recover`).
 */
export class TrackUploader {
  private stopped = false;
  private readonly running = new Map<string, Promise<void>>();
  private readonly wakers = new Set<() => void>();
  private readonly retry: TrackUploadRetry;

  constructor(
    private readonly o: { bus: Bus; recordingsDir: string; logger: Logger; retry?: TrackUploadRetry },
  ) {
    this.retry = o.retry ?? { firstMs: 1000, maxMs: 60_000 };
  }

  /** Uploads the session's tracks in the background; resolves once all are handed over (or the bot stops). */
  hand(state: Pick<SessionState, 'transcript_id' | 'owner_id'>): Promise<void> {
    const tid = state.transcript_id;
    let job = this.running.get(tid);
    if (!job) {
      job = this.uploadSession(state).finally(() => this.running.delete(tid));
      this.running.set(tid, job);
    }
    return job;
  }

  /** Every ended session under the recordings directory that still has tracks on disk, `mine` filtering. */
  async recover(mine: (state: SessionState) => boolean): Promise<void> {
    let entries: string[];
    try {
      entries = await readdir(this.o.recordingsDir);
    } catch {
      return;
    }
    for (const entry of entries) {
      const state = await readFile(path.join(this.o.recordingsDir, entry, SESSION_FILE), 'utf8')
        .then((t) => JSON.parse(t) as SessionState)
        .catch(() => null);
      if (!state || state.version !== 1 || !state.ended_at || !mine(state)) continue;
      if ((await this.files(state.transcript_id)).length > 0) void this.hand(state);
    }
  }

  /** Stops retrying (the files stay for the next start). */
  stop(): void {
    this.stopped = true;
    for (const wake of this.wakers) wake();
  }

  private async files(tid: string): Promise<string[]> {
    const dir = path.join(this.o.recordingsDir, tid);
    const names = await readdir(dir).catch(() => [] as string[]);
    return names.filter((n) => n.endsWith('.ogg')).map((n) => path.join(dir, n));
  }

  private async uploadSession(state: Pick<SessionState, 'transcript_id' | 'owner_id'>): Promise<void> {
    for (const file of await this.files(state.transcript_id)) {
      for (let attempt = 1; !this.stopped; attempt++) {
        try {
          await this.uploadOne(state, file);
          break;
        } catch (err) {
          const waitMs = Math.min(this.retry.maxMs, this.retry.firstMs * 2 ** Math.min(attempt - 1, 16));
          this.o.logger.warn(
            { err, transcriptId: state.transcript_id, file, attempt, waitMs },
            'speaker track not handed over yet; retrying',
          );
          await this.sleep(waitMs);
        }
      }
    }
  }

  private async uploadOne(
    state: Pick<SessionState, 'transcript_id' | 'owner_id'>,
    file: string,
  ): Promise<void> {
    const found = await readOggFile(file).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return null;
      throw err;
    });
    // Gone: handed over already (a restarted bot's recovery got there first) or removed.
    if (!found) return;
    const { length, tags } = found;
    const name = path.basename(file);
    const blob = `${state.transcript_id}/${name}`;
    const speaker = (tags.ARTIST ?? '').trim().slice(0, 200) || name.replace(/\.ogg$/, '');
    if (length > 0) {
      // Opened before the put, so that a file gone by now fails here (retried, then found
      // gone) and not as an error event of a stream nobody listens to yet.
      const fh = await open(file, 'r');
      let stored;
      try {
        stored = await this.o.bus.blobs.put(
          SESSION_AUDIO_BUCKET,
          blob,
          fh.createReadStream({ start: 0, end: length - 1 }),
          { contentType: 'audio/ogg' },
        );
      } finally {
        await fh.close().catch(() => undefined);
      }
      const { kept } = await call(this.o.bus, keepTrackRpc, {
        owner_id: state.owner_id,
        transcript_id: state.transcript_id,
        speaker,
        blob,
        size: stored.size,
        format: 'ogg',
        ...(tags.DISCORD_USER_ID ? { user_id: tags.DISCORD_USER_ID } : {}),
      });
      this.o.logger.info(
        { transcriptId: state.transcript_id, speaker, bytes: stored.size, kept },
        'speaker track handed over',
      );
    }
    await rm(file, { force: true });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wakers.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      timer.unref();
      this.wakers.add(done);
    });
  }
}
