import {
  LiveSocketEvents,
  type JoinedTranscription,
  type LiveLine,
  type LiveTranscriptionEvent,
  type SessionEndEvent,
} from '@chronicler/contracts';
import { io, type Socket } from 'socket.io-client';

/**
 * A viewer of one live transcript over the real socket, behaving as the web client does:
 * it joins on every connect with the last seq it holds, keeps one line per seq, asks for a
 * gap, and on session_end first fetches what it is missing. Tests read what it holds.
 */
export class LiveViewer {
  readonly socket: Socket;
  readonly lines = new Map<number, LiveLine>();
  readonly interims: LiveTranscriptionEvent[] = [];
  readonly finalsReceived: { seq: number; at: number; event: string }[] = [];
  readonly errors: unknown[] = [];
  joined: JoinedTranscription | null = null;
  ended: SessionEndEvent | null = null;
  connects = 0;
  /** Joins sent after the first: reconnects, gaps asked for, and an end that came before its lines. */
  rejoins = 0;
  /** Of those, the ones sent because session_end came before the lines it counts. */
  endRejoins = 0;
  #endWaiters: (() => void)[] = [];
  #lineWaiters: { n: number; resolve: () => void }[] = [];

  constructor(
    url: string,
    readonly transcriptId: string,
    token: string,
    opts: {
      origin?: string;
      transports?: ('websocket' | 'polling')[];
      onFinal?: (e: LiveTranscriptionEvent, at: number) => void;
    } = {},
  ) {
    this.socket = io(url, {
      path: '/socket.io',
      transports: opts.transports ?? ['websocket'],
      auth: { token },
      query: { transcript_id: transcriptId },
      reconnection: true,
      // Until the test gives up: a gateway killed on a busy machine may take a while to come back.
      reconnectionAttempts: Infinity,
      reconnectionDelay: 200,
      reconnectionDelayMax: 1000,
      ...(opts.origin ? { extraHeaders: { origin: opts.origin } } : {}),
    });
    this.socket.on('connect', () => {
      this.connects++;
      this.join();
    });
    this.socket.on(LiveSocketEvents.joined, (j: JoinedTranscription) => {
      this.joined = j;
    });
    const onFinal = (event: string) => (e: LiveTranscriptionEvent) => {
      const at = performance.now();
      if (e.type === 'initial' || e.type === 'content_update') {
        for (const l of e.lines ?? []) this.lines.set(l.seq, l);
      } else if (e.seq !== undefined) {
        this.finalsReceived.push({ seq: e.seq, at, event });
        opts.onFinal?.(e, at);
        if (!this.lines.has(e.seq)) {
          this.lines.set(e.seq, {
            seq: e.seq,
            utterance_id: e.utterance_id,
            text: e.text,
            speaker_tag: e.speaker_tag,
            ...(e.speaker_info ? { speaker_info: e.speaker_info } : {}),
            start_seconds: e.start_seconds,
            end_seconds: e.end_seconds,
            timestamp: e.timestamp,
            ...(e.lost ? { lost: true as const } : {}),
          });
        }
        if (e.seq > this.lastSeq() + 1 || (e.seq > 1 && !this.lines.has(e.seq - 1))) this.join();
      }
      this.#checkLines();
      this.#checkEnd();
    };
    this.socket.on(LiveSocketEvents.final, onFinal(LiveSocketEvents.final));
    this.socket.on(LiveSocketEvents.userFinal, onFinal(LiveSocketEvents.userFinal));
    this.socket.on(LiveSocketEvents.interim, (e: LiveTranscriptionEvent) => this.interims.push(e));
    this.socket.on(LiveSocketEvents.userInterim, (e: LiveTranscriptionEvent) => this.interims.push(e));
    this.socket.on(LiveSocketEvents.sessionEnd, (e: SessionEndEvent) => {
      this.ended = e;
      if (this.contiguous() < e.last_seq) {
        this.endRejoins++;
        this.join();
      }
      this.#checkEnd();
    });
    this.socket.on(LiveSocketEvents.error, (e: unknown) => this.errors.push(e));
    this.socket.on('connect_error', (e: Error) => this.errors.push(e.message));
  }

  /** The highest seq such that every line up to it is held. */
  contiguous(): number {
    let n = 0;
    while (this.lines.has(n + 1)) n++;
    return n;
  }

  lastSeq(): number {
    return this.contiguous();
  }

  join(): void {
    if (this.connects > 1 || this.joined !== null) this.rejoins++;
    this.socket.emit(LiveSocketEvents.join, { transcriptId: this.transcriptId, last_seq: this.contiguous() });
  }

  /** The lines held, in seq order. */
  ordered(): LiveLine[] {
    return [...this.lines.values()].sort((a, b) => a.seq - b.seq);
  }

  /** Resolves when the session ended and every line up to its last seq is held. */
  untilEnded(timeoutMs = 30_000): Promise<void> {
    return this.#until(
      (r) => this.#endWaiters.push(r),
      () => this.#complete(),
      timeoutMs,
      'the session end',
    );
  }

  untilLines(n: number, timeoutMs = 30_000): Promise<void> {
    return this.#until(
      (r) => this.#lineWaiters.push({ n, resolve: r }),
      () => this.contiguous() >= n,
      timeoutMs,
      `${n} lines`,
    );
  }

  close(): void {
    this.socket.close();
  }

  #complete(): boolean {
    return this.ended !== null && this.contiguous() >= this.ended.last_seq;
  }

  #checkEnd(): void {
    if (!this.#complete()) return;
    for (const w of this.#endWaiters.splice(0)) w();
  }

  #checkLines(): void {
    const n = this.contiguous();
    this.#lineWaiters = this.#lineWaiters.filter((w) => {
      if (n < w.n) return true;
      w.resolve();
      return false;
    });
  }

  #until(
    register: (resolve: () => void) => void,
    done: () => boolean,
    timeoutMs: number,
    what: string,
  ): Promise<void> {
    if (done()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `viewer waited ${timeoutMs} ms for ${what}: holds ${this.contiguous()} contiguous lines of ${this.lines.size}, ended ${JSON.stringify(this.ended)}, errors ${JSON.stringify(this.errors.slice(-3))}`,
            ),
          ),
        timeoutMs,
      );
      register(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
