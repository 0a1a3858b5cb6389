import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { FileBlobStore } from './memory-blobs.ts';
import { BusNamespace } from './subject.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'chronicler-blobs-test-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('FileBlobStore.expireAfter', () => {
  it('deletes objects older than the maximum age, keeps younger ones and other buckets', async () => {
    const ns = new BusNamespace('sweep');
    const store = new FileBlobStore(
      () => root,
      ns,
      () => {},
    );
    const body = () => Readable.from([Buffer.from('{}')]);
    await store.put('payloads', 'old', body());
    await store.put('payloads', 'young', body());
    await store.put('other', 'old', body());
    // Ages the object the way time would: its sidecar records when it was written.
    const sidecar = path.join(
      root,
      ns.bucket('payloads'),
      `${createHash('sha256').update('old').digest('hex')}.json`,
    );
    const info = JSON.parse(fs.readFileSync(sidecar, 'utf8')) as { createdAt: string };
    info.createdAt = new Date(Date.now() - 2 * 60 * 60 * 1000).toISOString();
    fs.writeFileSync(sidecar, JSON.stringify(info));

    await store.expireAfter('payloads', 60 * 60 * 1000);

    expect(await store.info('payloads', 'old')).toBeNull();
    expect(await store.info('payloads', 'young')).not.toBeNull();
    expect(await store.info('other', 'old')).not.toBeNull();
    expect(fs.readdirSync(path.join(root, ns.bucket('payloads'))).sort()).toHaveLength(2);
  });
});

describe('FileBlobStore.removeAbandoned', () => {
  it('removes what a put that died left once it is idle long enough, and never a put in progress or an object', async () => {
    const ns = new BusNamespace('abandoned');
    const open = () =>
      new FileBlobStore(
        () => root,
        ns,
        () => {},
      );
    const store = open();
    await store.put('audio', 'kept.ogg', Readable.from([Buffer.from('whole recording')]));
    // A put in progress in this process: its source has more to come.
    let finish!: () => void;
    const more = new Promise<void>((r) => (finish = r));
    async function* slow() {
      yield Buffer.from('first part');
      await more;
      yield Buffer.from(' and the rest');
    }
    const running = store.put('audio', 'uploading.ogg', slow());
    const dir = path.join(root, ns.bucket('audio'));
    await expect.poll(() => fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')).length).toBe(1);
    // What a process killed mid-upload leaves: a temp file, and data without its sidecar.
    const stale = path.join(dir, `.${'a'.repeat(64)}.dead.tmp`);
    const orphan = path.join(dir, `${'b'.repeat(64)}.data`);
    const fresh = path.join(dir, `.${'c'.repeat(64)}.recent.tmp`);
    for (const f of [stale, orphan, fresh]) fs.writeFileSync(f, 'partial');
    const anHourAgo = new Date(Date.now() - 60 * 60 * 1000);
    for (const f of [stale, orphan]) fs.utimesSync(f, anHourAgo, anHourAgo);

    expect(await store.removeAbandoned('audio', 10 * 60 * 1000)).toBe(2);
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(orphan)).toBe(false);
    expect(fs.existsSync(fresh)).toBe(true);
    // Idle for no time at all still spares this process's own put in progress.
    expect(await store.removeAbandoned('audio', 0)).toBe(1);
    expect(fs.existsSync(fresh)).toBe(false);
    finish();
    expect((await running).size).toBe('first part and the rest'.length);
    expect(await store.info('audio', 'kept.ogg')).not.toBeNull();
    expect(await store.info('audio', 'uploading.ogg')).not.toBeNull();
    // A store opened after a restart takes a dead put's temp file whatever its age.
    fs.writeFileSync(stale, 'partial');
    expect(await open().removeAbandoned('audio', 0)).toBe(1);
    expect(await store.info('audio', 'kept.ogg')).not.toBeNull();
  });
});
