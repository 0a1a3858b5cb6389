import {
  INTERIM_LIFETIME_MS,
  LiveSocketEvents,
  type LiveLine,
  type LiveTranscriptionEvent,
  type SessionEndEvent,
} from '@chronicler/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { END_CATCH_UP_MS, createLiveTranscriptStore } from './live-store.ts';
import type { LiveSocketLike, LiveTranscriptStore } from './live-types.ts';

const TID = '6f1c2a4e-8b0d-4d5e-9f3a-1b2c3d4e5f60';
const START = '2026-03-14T19:00:00.000Z';

/** A stand-in for socket.io-client's Socket: records what the store emits, lets a test deliver events. */
class FakeSocket implements LiveSocketLike {
  active = true;
  disconnects = 0;
  emitted: { event: string; payload: unknown }[] = [];
  private handlers = new Map<string, ((...args: unknown[]) => void)[]>();
  private managerHandlers = new Map<string, ((...args: unknown[]) => void)[]>();
  readonly io = {
    on: (event: string, listener: (...args: never[]) => void) => {
      const list = this.managerHandlers.get(event) ?? [];
      list.push(listener as (...args: unknown[]) => void);
      this.managerHandlers.set(event, list);
    },
  };
  on(event: string, listener: (...args: never[]) => void) {
    const list = this.handlers.get(event) ?? [];
    list.push(listener as (...args: unknown[]) => void);
    this.handlers.set(event, list);
  }
  emit(event: string, payload: unknown) {
    this.emitted.push({ event, payload });
  }
  disconnect() {
    this.disconnects += 1;
    this.active = false;
    this.deliver('disconnect', 'io client disconnect');
  }
  /** The server (or the library) sends an event to the client. */
  deliver(event: string, ...args: unknown[]) {
    for (const listener of this.handlers.get(event) ?? []) listener(...args);
  }
  manager(event: string, ...args: unknown[]) {
    for (const listener of this.managerHandlers.get(event) ?? []) listener(...args);
  }
  joins() {
    return this.emitted.filter((e) => e.event === LiveSocketEvents.join).map((e) => e.payload);
  }
}

const line = (seq: number, text = `line ${seq}`, speaker: string | number = 'MATT'): LiveLine => ({
  seq,
  utterance_id: `u${seq}`,
  text,
  speaker_tag: speaker,
  start_seconds: seq * 4,
  end_seconds: seq * 4 + 3,
  timestamp: new Date(Date.parse(START) + seq * 4000).toISOString(),
});

const finalEvent = (seq: number, extra: Partial<LiveTranscriptionEvent> = {}): LiveTranscriptionEvent => ({
  transcript_id: TID,
  type: 'final',
  ...line(seq),
  session_start_time: START,
  ...extra,
});

const interimEvent = (
  utteranceId: string,
  text: string,
  extra: Partial<LiveTranscriptionEvent> = {},
): LiveTranscriptionEvent => ({
  transcript_id: TID,
  type: 'interim',
  utterance_id: utteranceId,
  text,
  speaker_tag: 'MATT',
  timestamp: START,
  session_start_time: START,
  start_seconds: 10,
  end_seconds: 11,
  ...extra,
});

const initialEvent = (lines: LiveLine[] | undefined, content = '', seq?: number): LiveTranscriptionEvent => ({
  transcript_id: TID,
  type: 'initial',
  utterance_id: '',
  text: '',
  speaker_tag: 1,
  timestamp: START,
  session_start_time: START,
  start_seconds: 0,
  end_seconds: 0,
  content,
  ...(lines ? { lines } : {}),
  ...(seq !== undefined ? { seq } : {}),
});

const endEvent = (lastSeq: number): SessionEndEvent => ({
  transcript_id: TID,
  name: 'Live Transcription',
  summary: '',
  llm_summary: '',
  ended_at: '2026-03-14T23:00:00.000Z',
  last_seq: lastSeq,
});

let socket: FakeSocket;
let store: LiveTranscriptStore;
const seqs = () => store.getSnapshot().lines.map((l) => l.seq);
const interimTexts = () => store.getSnapshot().interims.map((i) => i.text);

beforeEach(() => {
  socket = new FakeSocket();
  store = createLiveTranscriptStore(TID, socket);
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** Connects and joins, as the server answers a join. */
function connectAndJoin(lastSeq = 0) {
  socket.deliver('connect');
  socket.deliver(LiveSocketEvents.joined, {
    transcript_id: TID,
    session_start_time: START,
    status: 'active',
    last_seq: lastSeq,
  });
}

describe('the live transcript store', () => {
  it('joins on connect with the highest seq it holds, and again on every reconnect', () => {
    expect(store.getSnapshot().status).toBe('connecting');
    connectAndJoin();
    expect(socket.joins()).toEqual([{ transcriptId: TID, last_seq: 0 }]);
    expect(store.getSnapshot().status).toBe('live');
    expect(store.getSnapshot().sessionStartTime).toBe(START);
    socket.deliver(LiveSocketEvents.final, finalEvent(1));
    socket.deliver(LiveSocketEvents.userFinal, finalEvent(2, { speaker_info: { displayName: 'Vex' } }));

    socket.deliver('disconnect', 'transport close');
    expect(store.getSnapshot().status).toBe('reconnecting');
    socket.deliver('connect');
    expect(socket.joins().at(-1)).toEqual({ transcriptId: TID, last_seq: 2 });
  });

  it('keeps final lines ordered by seq and ignores a seq it already holds', () => {
    connectAndJoin();
    socket.deliver(LiveSocketEvents.final, finalEvent(1));
    socket.deliver(LiveSocketEvents.final, finalEvent(2));
    // A redelivery (or a replay after a reconnect) with other text changes nothing.
    socket.deliver(LiveSocketEvents.final, finalEvent(2, { text: 'a second copy' }));
    socket.deliver(LiveSocketEvents.final, finalEvent(1));
    expect(seqs()).toEqual([1, 2]);
    expect(store.getSnapshot().lines[1]!.text).toBe('line 2');
  });

  it('asks for a gap with the last seq it holds in order, once per gap, and orders what comes', () => {
    connectAndJoin();
    socket.deliver(LiveSocketEvents.final, finalEvent(1));
    socket.deliver(LiveSocketEvents.final, finalEvent(4));
    socket.deliver(LiveSocketEvents.final, finalEvent(5));
    expect(socket.joins()).toEqual([
      { transcriptId: TID, last_seq: 0 },
      { transcriptId: TID, last_seq: 1 },
    ]);
    expect(seqs()).toEqual([1, 4, 5]);
    // The server answers with the lines after 1: the duplicates of 4 and 5 are ignored.
    socket.deliver(LiveSocketEvents.final, initialEvent([line(2), line(3), line(4), line(5)]));
    expect(seqs()).toEqual([1, 2, 3, 4, 5]);
    socket.deliver(LiveSocketEvents.final, finalEvent(6));
    expect(socket.joins()).toHaveLength(2);
    // A reconnect asks from the end of the run, 6.
    socket.deliver('disconnect', 'ping timeout');
    socket.deliver('connect');
    expect(socket.joins().at(-1)).toEqual({ transcriptId: TID, last_seq: 6 });
  });

  it('takes a lost marker as its seq held: no gap asked for it, and the end is not held up', () => {
    connectAndJoin();
    socket.deliver(LiveSocketEvents.final, finalEvent(1));
    const marker = { ...line(2, ''), utterance_id: 'lost:2', speaker_tag: 0, lost: true as const };
    socket.deliver(LiveSocketEvents.final, {
      transcript_id: TID,
      type: 'final',
      ...marker,
      session_start_time: START,
    });
    socket.deliver(LiveSocketEvents.final, finalEvent(3));
    expect(socket.joins()).toHaveLength(1);
    expect(seqs()).toEqual([1, 2, 3]);
    expect(store.getSnapshot().lines[1]!.lost).toBe(true);
    // The same marker inside a catch-up answer is kept too.
    socket.deliver(
      LiveSocketEvents.final,
      initialEvent([line(4), { ...marker, seq: 5, utterance_id: 'lost:5' }]),
    );
    expect(seqs()).toEqual([1, 2, 3, 4, 5]);
    const ended: SessionEndEvent[] = [];
    store.onEnd((event) => ended.push(event));
    socket.deliver(LiveSocketEvents.sessionEnd, endEvent(5));
    expect(ended).toEqual([endEvent(5)]);
  });

  it('merges the lines of an initial answer by seq, and takes its text when it has no lines', () => {
    connectAndJoin();
    socket.deliver(LiveSocketEvents.final, finalEvent(3));
    socket.deliver(LiveSocketEvents.final, initialEvent([line(1), line(2), line(3, 'changed?')]));
    expect(seqs()).toEqual([1, 2, 3]);
    expect(store.getSnapshot().lines[2]!.text).toBe('line 3');

    const other = createLiveTranscriptStore(TID, new FakeSocket());
    const fake = new FakeSocket();
    const textOnly = createLiveTranscriptStore(TID, fake);
    fake.deliver('connect');
    fake.deliver(LiveSocketEvents.final, initialEvent(undefined, '[00:00:05] MATT: Hello.', 7));
    expect(textOnly.getSnapshot().content).toBe('[00:00:05] MATT: Hello.');
    expect(textOnly.getSnapshot().contentSeq).toBe(7);
    // Held up to 7 through the text: 8 follows without a gap request, 7 is a duplicate.
    fake.deliver(LiveSocketEvents.final, finalEvent(7));
    fake.deliver(LiveSocketEvents.final, finalEvent(8));
    expect(textOnly.getSnapshot().lines.map((l) => l.seq)).toEqual([8]);
    expect(fake.joins()).toHaveLength(1);
    other.close();
  });

  it('replaces the final text on content_update, keeping the lines after it', () => {
    connectAndJoin();
    socket.deliver(LiveSocketEvents.final, finalEvent(1));
    socket.deliver(LiveSocketEvents.final, finalEvent(2));
    socket.deliver(LiveSocketEvents.final, finalEvent(3));
    socket.deliver(LiveSocketEvents.final, {
      ...initialEvent(undefined, '[00:00:04] MATT: edited one\n[00:00:08] MATT: edited two', 2),
      type: 'content_update',
    });
    const snapshot = store.getSnapshot();
    expect(snapshot.content).toBe('[00:00:04] MATT: edited one\n[00:00:08] MATT: edited two');
    expect(snapshot.contentSeq).toBe(2);
    expect(snapshot.lines.map((l) => l.seq)).toEqual([3]);
    // Seq 2 is inside the text now: a redelivery of it adds nothing.
    socket.deliver(LiveSocketEvents.final, finalEvent(2));
    expect(seqs()).toEqual([3]);
  });

  it('replaces an interim with a later one of the same utterance and speaker, and drops it for its final', () => {
    connectAndJoin();
    socket.deliver(LiveSocketEvents.interim, interimEvent('u1', 'Roll'));
    socket.deliver(LiveSocketEvents.interim, interimEvent('u1', 'Roll for'));
    socket.deliver(
      LiveSocketEvents.userInterim,
      interimEvent('u1', 'Wait', { speaker_tag: 2, speaker_info: { displayName: 'Vex' } }),
    );
    expect(interimTexts()).toEqual(['Roll for', 'Wait']);
    socket.deliver(
      LiveSocketEvents.final,
      finalEvent(1, { utterance_id: 'u1', text: 'Roll for initiative.' }),
    );
    expect(interimTexts()).toEqual([]);
    // An interim that arrives after its final (another path through the server) is stale.
    socket.deliver(LiveSocketEvents.interim, interimEvent('u1', 'Roll for ini'));
    expect(interimTexts()).toEqual([]);
  });

  it('drops an interim 30 seconds after its last update', () => {
    vi.useFakeTimers();
    connectAndJoin();
    socket.deliver(LiveSocketEvents.interim, interimEvent('u1', 'Roll'));
    vi.advanceTimersByTime(INTERIM_LIFETIME_MS - 1000);
    socket.deliver(LiveSocketEvents.interim, interimEvent('u1', 'Roll for'));
    socket.deliver(LiveSocketEvents.interim, interimEvent('u2', 'Meanwhile'));
    vi.advanceTimersByTime(INTERIM_LIFETIME_MS - 1);
    expect(interimTexts()).toEqual(['Roll for', 'Meanwhile']);
    vi.advanceTimersByTime(1);
    expect(interimTexts()).toEqual([]);
  });

  it('drops every interim on a disconnect', () => {
    connectAndJoin();
    socket.deliver(LiveSocketEvents.interim, interimEvent('u1', 'Roll'));
    socket.deliver(LiveSocketEvents.interim, interimEvent('u2', 'Hmm'));
    socket.deliver(LiveSocketEvents.final, finalEvent(1));
    socket.deliver('disconnect', 'transport close');
    expect(interimTexts()).toEqual([]);
    expect(seqs()).toEqual([1]);
    expect(store.getSnapshot().status).toBe('reconnecting');
  });

  it('warns about and ignores lines without utterance_id or text, and user lines without a name', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    connectAndJoin();
    socket.deliver(LiveSocketEvents.final, finalEvent(1, { utterance_id: '' }));
    socket.deliver(LiveSocketEvents.final, finalEvent(1, { text: '  ' }));
    socket.deliver(LiveSocketEvents.userFinal, finalEvent(1));
    socket.deliver(LiveSocketEvents.userFinal, finalEvent(1, { speaker_info: { displayName: '' } }));
    socket.deliver(LiveSocketEvents.interim, interimEvent('', 'text'));
    socket.deliver(LiveSocketEvents.userInterim, interimEvent('u9', 'text'));
    socket.deliver(LiveSocketEvents.final, initialEvent([{ ...line(1), text: '' }, line(2)]));
    expect(warn).toHaveBeenCalledTimes(7);
    expect(seqs()).toEqual([2]);
    expect(interimTexts()).toEqual([]);
    // A plain (non-user) line needs no name.
    socket.deliver(LiveSocketEvents.final, finalEvent(1));
    expect(seqs()).toEqual([1, 2]);
  });

  it('ends at once when it holds everything: notifies, closes and never reconnects', () => {
    connectAndJoin();
    socket.deliver(LiveSocketEvents.final, finalEvent(1));
    socket.deliver(LiveSocketEvents.interim, interimEvent('u2', 'and then'));
    const ended: SessionEndEvent[] = [];
    store.onEnd((event) => ended.push(event));
    socket.deliver(LiveSocketEvents.sessionEnd, endEvent(1));
    expect(ended).toEqual([endEvent(1)]);
    expect(store.getSnapshot().status).toBe('ended');
    expect(interimTexts()).toEqual([]);
    expect(socket.disconnects).toBe(1);

    // Whatever happens next (the library reconnecting, late events), it stays ended and closed.
    const joins = socket.joins().length;
    socket.deliver('connect');
    expect(socket.joins()).toHaveLength(joins);
    expect(socket.disconnects).toBe(2);
    socket.deliver(LiveSocketEvents.final, finalEvent(2));
    socket.deliver(LiveSocketEvents.sessionEnd, endEvent(2));
    socket.deliver('disconnect', 'transport close');
    expect(store.getSnapshot().status).toBe('ended');
    expect(seqs()).toEqual([1]);
    expect(ended).toHaveLength(1);
  });

  it('asks for the missing lines before it ends when it holds fewer than last_seq', () => {
    connectAndJoin();
    socket.deliver(LiveSocketEvents.final, finalEvent(1));
    const ended: SessionEndEvent[] = [];
    store.onEnd((event) => ended.push(event));
    socket.deliver(LiveSocketEvents.sessionEnd, endEvent(3));
    expect(socket.joins().at(-1)).toEqual({ transcriptId: TID, last_seq: 1 });
    expect(ended).toEqual([]);
    expect(store.getSnapshot().status).toBe('live');
    expect(socket.disconnects).toBe(0);

    socket.deliver(LiveSocketEvents.final, initialEvent([line(2), line(3)]));
    expect(seqs()).toEqual([1, 2, 3]);
    expect(ended).toEqual([endEvent(3)]);
    expect(store.getSnapshot().status).toBe('ended');
    expect(socket.disconnects).toBe(1);
  });

  it('joining a session that has ended waits for the answer to that join, asks nothing more, then ends', () => {
    socket.deliver('connect');
    const ended: SessionEndEvent[] = [];
    store.onEnd((event) => ended.push(event));
    socket.deliver(LiveSocketEvents.joined, {
      transcript_id: TID,
      session_start_time: START,
      status: 'ended',
      last_seq: 2,
    });
    // The server's own session_end may follow the joined answer: still one join, no end yet.
    socket.deliver(LiveSocketEvents.sessionEnd, endEvent(2));
    expect(socket.joins()).toHaveLength(1);
    expect(ended).toEqual([]);
    socket.deliver(LiveSocketEvents.final, initialEvent([line(1), line(2)]));
    expect(ended).toEqual([endEvent(2)]);
    expect(store.getSnapshot().status).toBe('ended');
    expect(seqs()).toEqual([1, 2]);
  });

  it('ends anyway when the missing lines do not come', () => {
    vi.useFakeTimers();
    connectAndJoin();
    const ended: SessionEndEvent[] = [];
    store.onEnd((event) => ended.push(event));
    socket.deliver(LiveSocketEvents.sessionEnd, endEvent(5));
    vi.advanceTimersByTime(END_CATCH_UP_MS - 1);
    expect(ended).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ended).toHaveLength(1);
    expect(store.getSnapshot().status).toBe('ended');
  });

  it('goes offline when the reconnect attempts are spent or the server refuses the handshake', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    socket.deliver('connect_error', new Error('xhr poll error'));
    expect(store.getSnapshot().status).toBe('connecting');
    socket.manager('reconnect_failed');
    expect(store.getSnapshot().status).toBe('offline');

    const refused = new FakeSocket();
    const other = createLiveTranscriptStore(TID, refused);
    refused.active = false;
    refused.deliver('connect_error', new Error('unauthorized'));
    expect(other.getSnapshot().status).toBe('offline');
    expect(warn).toHaveBeenCalledTimes(2);
  });

  it('ignores events of another transcript', () => {
    connectAndJoin();
    socket.deliver(LiveSocketEvents.final, finalEvent(1, { transcript_id: 'another' }));
    socket.deliver(LiveSocketEvents.sessionEnd, { ...endEvent(0), transcript_id: 'another' });
    expect(seqs()).toEqual([]);
    expect(store.getSnapshot().status).toBe('live');
  });

  it('notifies subscribers with a new snapshot per change, and none after close', () => {
    let calls = 0;
    const unsubscribe = store.subscribe(() => (calls += 1));
    connectAndJoin();
    const before = store.getSnapshot();
    socket.deliver(LiveSocketEvents.final, finalEvent(1));
    expect(store.getSnapshot()).not.toBe(before);
    expect(calls).toBeGreaterThan(0);
    store.close();
    const after = calls;
    socket.deliver(LiveSocketEvents.final, finalEvent(2));
    expect(calls).toBe(after);
    expect(socket.disconnects).toBe(1);
    unsubscribe();
  });
});
