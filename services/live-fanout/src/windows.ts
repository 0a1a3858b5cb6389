import type { LiveLine } from '@chronicler/contracts';

/** A session's recent lines and what is known of it. */
interface SessionWindow {
  startedAt: string | null;
  /** By seq; at most `linesPerSession`, the newest kept. */
  lines: Map<number, LiveLine>;
  /** Time of the last change (ms): an idle session's window is dropped after `idleMs`. */
  touched: number;
  ended: boolean;
}

export interface WindowLimits {
  /** Lines kept per session (the newest). */
  linesPerSession: number;
  /** Sessions kept (the least recently changed goes first). */
  sessions: number;
  /** A session without a line this long, or ended this long ago, is dropped (ms). */
  idleMs: number;
}

/**
 * The recent window of every active session, in memory and bounded (lines per session,
 * sessions, idle time): what a joining viewer needs beyond the stored lines, a line delivered
 * before the transcript service stored it. Built from the deliveries themselves, so every
 * replica holds every session's window whichever replica delivered.
 */
export class LiveWindows {
  private readonly sessions = new Map<string, SessionWindow>();

  constructor(
    private readonly limits: WindowLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  private session(transcriptId: string): SessionWindow {
    let s = this.sessions.get(transcriptId);
    if (s) {
      // Map order is the eviction order: a touched session goes to the back.
      this.sessions.delete(transcriptId);
    } else {
      s = { startedAt: null, lines: new Map(), touched: 0, ended: false };
    }
    s.touched = this.now();
    this.sessions.set(transcriptId, s);
    this.evict();
    return s;
  }

  private evict(): void {
    const now = this.now();
    for (const [id, s] of this.sessions) {
      if (this.sessions.size <= this.limits.sessions && now - s.touched < this.limits.idleMs) break;
      this.sessions.delete(id);
    }
  }

  started(transcriptId: string, startedAt: string): void {
    this.session(transcriptId).startedAt = startedAt;
  }

  startOf(transcriptId: string): string | null {
    return this.sessions.get(transcriptId)?.startedAt ?? null;
  }

  /** A final as viewers got it, with its session's start. */
  add(transcriptId: string, line: LiveLine, sessionStartTime: string | undefined): void {
    const s = this.session(transcriptId);
    if (sessionStartTime) s.startedAt = sessionStartTime;
    s.lines.set(line.seq, line);
    if (s.lines.size > this.limits.linesPerSession) {
      const oldest = [...s.lines.keys()].sort((a, b) => a - b);
      for (const seq of oldest.slice(0, s.lines.size - this.limits.linesPerSession)) s.lines.delete(seq);
    }
  }

  /** The session ended: its window stays for late joiners until it idles out. */
  ended(transcriptId: string): void {
    this.session(transcriptId).ended = true;
  }

  /** The lines after `afterSeq` in seq order; `known` when the session is held. */
  after(transcriptId: string, afterSeq: number): { known: boolean; lines: LiveLine[] } {
    this.evict();
    const s = this.sessions.get(transcriptId);
    if (!s) return { known: false, lines: [] };
    const lines = [...s.lines.values()].filter((l) => l.seq > afterSeq).sort((a, b) => a.seq - b.seq);
    return { known: true, lines };
  }
}
