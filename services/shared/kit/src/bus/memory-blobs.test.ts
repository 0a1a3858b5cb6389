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
