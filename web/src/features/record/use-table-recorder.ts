import { useCallback, useEffect, useRef, useState } from 'react';
import { isApiError } from '../../api/http.ts';
import { finishTableRecording, sendChunk } from '../../api/table-recordings.ts';
import {
  addChunk,
  dropChunk,
  dropRecording,
  pendingChunks,
  saveRecording,
  type LocalRecording,
} from './chunk-store.ts';

/** A chunk every two seconds: what a reload or a crash can lose at most. */
const TIMESLICE_MS = 2000;

/** The Opus containers the server keeps, the browser's first choice first. */
export function recorderMimeType(): string | null {
  if (typeof MediaRecorder === 'undefined') return null;
  for (const t of ['audio/webm;codecs=opus', 'audio/ogg;codecs=opus', 'audio/webm', 'audio/ogg']) {
    if (MediaRecorder.isTypeSupported(t)) return t;
  }
  return null;
}

export type RecorderState = 'idle' | 'recording' | 'paused' | 'saving' | 'saved' | 'failed';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Records the microphone into a recording begun on the server, sending each chunk as it is
 * made and keeping it in IndexedDB until acknowledged; a refused chunk stops the upload and
 * says why, a network failure waits and tries again.
 */
export function useTableRecorder(onSaved: (sessionId: string) => void) {
  const [state, setState] = useState<RecorderState>('idle');
  const [elapsed, setElapsed] = useState(0);
  const [level, setLevel] = useState(0);
  const [pending, setPending] = useState(0);
  const [offline, setOffline] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [current, setCurrent] = useState<{ id: string; live: boolean } | null>(null);
  const [wakeLock, setWakeLock] = useState<'held' | 'unsupported' | 'refused' | null>(null);

  const rec = useRef<LocalRecording | null>(null);
  const media = useRef<{ recorder: MediaRecorder; stream: MediaStream; audio: AudioContext } | null>(null);
  const partStart = useRef<number>(0);
  const baseMs = useRef<number>(0);
  const uploading = useRef(false);
  const wanted = useRef(false);
  const wake = useRef<WakeLockSentinel | null>(null);
  const onSavedRef = useRef(onSaved);
  onSavedRef.current = onSaved;

  const refreshPending = useCallback(async (id: string) => {
    setPending((await pendingChunks(id)).length);
  }, []);

  /** Sends what is waiting, in order, until nothing is; then finishes a stopped recording. */
  const pump = useCallback(async (): Promise<void> => {
    if (uploading.current) {
      wanted.current = true;
      return;
    }
    uploading.current = true;
    wanted.current = false;
    try {
      for (;;) {
        const r = rec.current;
        if (!r) return;
        const chunks = await pendingChunks(r.id);
        setPending(chunks.length);
        if (chunks.length === 0) {
          if (!r.stopped) return;
          setState('saving');
          try {
            const item = await finishTableRecording(
              r.id,
              r.counts.filter((n) => n > 0),
            );
            await dropRecording(r.id);
            rec.current = null;
            setState('saved');
            onSavedRef.current(item.id);
            return;
          } catch (err) {
            if (isApiError(err) && err.httpStatus && err.httpStatus < 500 && err.httpStatus !== 409) {
              setError(err.detail ?? err.message);
              setState('failed');
              return;
            }
            setOffline(true);
            await sleep(2000);
            continue;
          }
        }
        for (const c of chunks) {
          try {
            await sendChunk(c.id, c.part, c.seq, c.blob);
            await dropChunk(c);
            setOffline(false);
            setPending((n) => Math.max(0, n - 1));
          } catch (err) {
            const status = isApiError(err) ? err.httpStatus : undefined;
            if (status && status < 500 && status !== 408 && status !== 429) {
              // Refused (not only not received): kept here, and said.
              setError(isApiError(err) ? (err.detail ?? err.message) : String(err));
              return;
            }
            setOffline(true);
            await sleep(2000);
            break;
          }
        }
      }
    } finally {
      uploading.current = false;
    }
    // Asked for while this pass ran (a chunk made, Stop pressed): one more pass.
    if (wanted.current) return pump();
  }, []);

  useEffect(() => {
    const again = () => void pump();
    window.addEventListener('online', again);
    return () => window.removeEventListener('online', again);
  }, [pump]);

  /** Recorded time: what was recorded before the stretch now running, and that stretch. */
  const elapsedNow = () =>
    baseMs.current + (media.current?.recorder.state === 'recording' ? Date.now() - partStart.current : 0);

  useEffect(() => {
    if (state !== 'recording') return;
    const t = setInterval(() => setElapsed(elapsedNowRef.current()), 250);
    return () => clearInterval(t);
  }, [state]);

  const holdScreen = useCallback(async () => {
    if (!('wakeLock' in navigator)) return setWakeLock('unsupported');
    try {
      wake.current = await navigator.wakeLock.request('screen');
      setWakeLock('held');
    } catch {
      setWakeLock('refused');
    }
  }, []);

  useEffect(() => {
    // The browser lets the lock go when the page is hidden: taken again when it is back.
    const back = () => {
      if (document.visibilityState === 'visible' && media.current) void holdScreen();
    };
    document.addEventListener('visibilitychange', back);
    return () => document.removeEventListener('visibilitychange', back);
  }, [holdScreen]);

  /** Records into `r` (new, or found in this browser after a reload: a new part). */
  const record = useCallback(
    async (r: LocalRecording) => {
      setError(null);
      const stream = await navigator.mediaDevices.getUserMedia({
        audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: true },
      });
      // A part that never made a chunk is used again; otherwise the next one starts.
      if (r.counts.length === 0 || r.counts[r.counts.length - 1]! > 0) r.counts.push(0);
      r.stopped = false;
      rec.current = r;
      setCurrent({ id: r.id, live: Boolean(r.live) });
      await saveRecording(r);
      const part = r.counts.length - 1;
      const recorder = new MediaRecorder(stream, { mimeType: r.mime_type, audioBitsPerSecond: 32_000 });
      const audio = new AudioContext();
      const analyser = audio.createAnalyser();
      analyser.fftSize = 1024;
      audio.createMediaStreamSource(stream).connect(analyser);
      const samples = new Float32Array(analyser.fftSize);
      const meter = () => {
        if (media.current?.audio !== audio) return;
        analyser.getFloatTimeDomainData(samples);
        let sum = 0;
        for (const s of samples) sum += s * s;
        setLevel(Math.min(1, Math.sqrt(sum / samples.length) * 4));
        requestAnimationFrame(meter);
      };
      recorder.ondataavailable = (e) => {
        const current = rec.current;
        if (!current || e.data.size === 0) return;
        const seq = current.counts[part]!;
        current.counts[part] = seq + 1;
        current.elapsed_ms = elapsedNowRef.current();
        void addChunk(
          { ...current, counts: [...current.counts] },
          { id: current.id, part, seq, blob: e.data },
        )
          .then(() => pump())
          .catch((err: unknown) => setError(`This browser could not keep the recording: ${String(err)}`));
      };
      media.current = { recorder, stream, audio };
      baseMs.current = r.elapsed_ms;
      partStart.current = Date.now();
      recorder.start(TIMESLICE_MS);
      requestAnimationFrame(meter);
      setState('recording');
      void holdScreen();
      void refreshPending(r.id);
      void pump();
    },
    [holdScreen, pump, refreshPending],
  );

  const elapsedNowRef = useRef(elapsedNow);
  elapsedNowRef.current = elapsedNow;

  const pause = () => {
    const m = media.current;
    if (!m || m.recorder.state !== 'recording' || !rec.current) return;
    baseMs.current += Date.now() - partStart.current;
    m.recorder.pause();
    rec.current.elapsed_ms = baseMs.current;
    setElapsed(baseMs.current);
    setState('paused');
  };

  const resume = () => {
    const m = media.current;
    if (!m || m.recorder.state !== 'paused') return;
    partStart.current = Date.now();
    m.recorder.resume();
    setState('recording');
  };

  const release = () => {
    const m = media.current;
    media.current = null;
    m?.stream.getTracks().forEach((t) => t.stop());
    void m?.audio.close();
    void wake.current?.release().catch(() => undefined);
    wake.current = null;
    setLevel(0);
  };

  /** Stop: the last chunk is kept, everything sent, then the session is made. */
  const stop = async () => {
    const m = media.current;
    const r = rec.current;
    if (!r) return;
    if (m && m.recorder.state !== 'inactive') {
      r.elapsed_ms = elapsedNow();
      await new Promise<void>((resolve) => {
        m.recorder.addEventListener('stop', () => resolve(), { once: true });
        m.recorder.stop();
      });
      // The last dataavailable's chunk is written before the flag.
      await new Promise((res) => setTimeout(res, 0));
    }
    release();
    r.stopped = true;
    await saveRecording({ ...r, counts: [...r.counts] });
    setElapsed(r.elapsed_ms);
    setState('saving');
    void pump();
  };

  /** A recording found in this browser, stopped or not, finished as it is. */
  const finishFound = async (r: LocalRecording) => {
    rec.current = { ...r, stopped: true };
    await saveRecording(rec.current);
    setElapsed(r.elapsed_ms);
    setState('saving');
    void pump();
  };

  useEffect(() => () => release(), []);

  return {
    /** The recording under way (or being saved), and whether it is transcribed live. */
    current,
    state,
    elapsed,
    level,
    pending,
    offline,
    error,
    wakeLock,
    record,
    pause,
    resume,
    stop,
    finishFound,
  };
}
