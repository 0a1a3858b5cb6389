/**
 * Maps a speech stream's audio time to session time. Discord sends nothing while someone is
 * quiet, so the provider hears one speaker's speech back to back: 3 s into its stream may be
 * 40 s into the session. Each time audio resumes after a gap an anchor records where the
 * stream's audio clock meets the session clock; an offset maps through the anchor before it.
 */
export interface Anchor {
  /** Seconds of audio the stream had received when this run of audio began. */
  audio: number;
  /** Seconds since the session started at which the run began. */
  session: number;
}

export class StreamTimeline {
  private readonly anchors: Anchor[] = [];
  private samples = 0;

  constructor(
    private readonly sampleRate: number,
    /** A run of audio that starts this much later than the previous one ended is a new run. */
    private readonly gapSeconds: number,
  ) {}

  /** Seconds of audio the stream has received. */
  get audioSeconds(): number {
    return this.samples / this.sampleRate;
  }

  get runs(): readonly Anchor[] {
    return this.anchors;
  }

  /**
   * Accounts for `samples` sent to the stream that began at `sessionSeconds`. Returns true
   * when they start a new run (audio resumed after a gap). Audio arriving earlier than the
   * running clock expects (jitter, a replay faster than real time) continues the run.
   */
  append(sessionSeconds: number, samples: number): boolean {
    const last = this.anchors[this.anchors.length - 1];
    const expected = last ? last.session + (this.audioSeconds - last.audio) : -Infinity;
    const resumed = sessionSeconds - expected > this.gapSeconds;
    if (resumed) this.anchors.push({ audio: this.audioSeconds, session: sessionSeconds });
    this.samples += samples;
    return resumed;
  }

  /**
   * Session seconds of a stream offset. A start maps through the run it falls in; an end that
   * falls exactly where a run began belongs to the run before (speech ended, then the gap).
   */
  toSession(audioSeconds: number, edge: 'start' | 'end'): number {
    let anchor = this.anchors[0];
    if (!anchor) return Math.max(0, audioSeconds);
    for (const a of this.anchors) {
      if (edge === 'start' ? a.audio <= audioSeconds : a.audio < audioSeconds) anchor = a;
      else break;
    }
    return Math.max(0, anchor.session + (audioSeconds - anchor.audio));
  }
}
