/**
 * The browser's copy of a recording in progress (IndexedDB): its description and every chunk
 * not yet acknowledged by the server, so a reload, a crashed tab or a lost network loses at
 * most the chunk being recorded.
 */

export interface LocalRecording {
  id: string;
  name: string;
  session_date: string;
  group_id: string | null;
  mime_type: string;
  /** Transcribed live: its lines show as it records (the session's id is the recording's). */
  live?: boolean;
  /** Chunks made so far in each part (a part: one MediaRecorder, from a start or resume to its end). */
  counts: number[];
  /** Recorded time before the current part, and in it so far (ms). */
  elapsed_ms: number;
  /** Set once the user pressed Stop: only the upload and the finish remain. */
  stopped: boolean;
}

export interface LocalChunk {
  id: string;
  part: number;
  seq: number;
  blob: Blob;
}

const DB_NAME = 'chronicler-table-recordings';
const RECORDINGS = 'recordings';
const CHUNKS = 'chunks';

let opened: Promise<IDBDatabase> | null = null;

function db(): Promise<IDBDatabase> {
  opened ??= new Promise((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, 1);
    req.onupgradeneeded = () => {
      req.result.createObjectStore(RECORDINGS, { keyPath: 'id' });
      req.result.createObjectStore(CHUNKS, { keyPath: ['id', 'part', 'seq'] });
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB is unavailable'));
  });
  return opened;
}

async function run<T>(
  stores: string[],
  mode: IDBTransactionMode,
  work: (tx: IDBTransaction) => IDBRequest<T> | void,
): Promise<T | undefined> {
  const tx = (await db()).transaction(stores, mode);
  const req = work(tx);
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve(req ? req.result : undefined);
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB write failed'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB write aborted'));
  });
}

export const saveRecording = (r: LocalRecording) =>
  run([RECORDINGS], 'readwrite', (tx) => tx.objectStore(RECORDINGS).put(r)).then(() => undefined);

export const listRecordings = async (): Promise<LocalRecording[]> =>
  ((await run([RECORDINGS], 'readonly', (tx) => tx.objectStore(RECORDINGS).getAll())) ??
    []) as LocalRecording[];

/** A chunk and its recording's new counts, in one transaction: both or neither are kept. */
export const addChunk = (r: LocalRecording, c: LocalChunk) =>
  run([RECORDINGS, CHUNKS], 'readwrite', (tx) => {
    tx.objectStore(CHUNKS).put(c);
    tx.objectStore(RECORDINGS).put(r);
  }).then(() => undefined);

/** The recording's chunks not yet acknowledged, in order (part, then sequence). */
export const pendingChunks = async (id: string): Promise<LocalChunk[]> =>
  ((await run([CHUNKS], 'readonly', (tx) =>
    tx.objectStore(CHUNKS).getAll(IDBKeyRange.bound([id, 0, 0], [id, Infinity, Infinity])),
  )) ?? []) as LocalChunk[];

export const dropChunk = (c: LocalChunk) =>
  run([CHUNKS], 'readwrite', (tx) => tx.objectStore(CHUNKS).delete([c.id, c.part, c.seq])).then(
    () => undefined,
  );

/** The recording and whatever of it is left here. */
export const dropRecording = (id: string) =>
  run([RECORDINGS, CHUNKS], 'readwrite', (tx) => {
    tx.objectStore(RECORDINGS).delete(id);
    tx.objectStore(CHUNKS).delete(IDBKeyRange.bound([id, 0, 0], [id, Infinity, Infinity]));
  }).then(() => undefined);
