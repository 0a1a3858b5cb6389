import { describe, expect, it } from 'vitest';
import type { RecordingStore } from '../db/recordings.ts';
import { recordingFile, recordingLinks } from './recordings.ts';

const ID = '0b4f0a52-5b6c-4e0c-9a38-6a1f0c1d2e3f';
const store = {
  signingKey: () => Promise.resolve(Buffer.alloc(32, 7)),
  ofGuild: () =>
    Promise.resolve([{ transcript_id: ID, name: 'Night', started_at: '2026-01-01T00:00:00.000Z' }]),
  tracksOf: (id: string) =>
    Promise.resolve(
      id === ID
        ? { name: 'Night', tracks: [{ speaker: 'Matt (2)', blob: `${ID}/1.ogg`, size: 10, format: 'ogg' }] }
        : null,
    ),
} as unknown as RecordingStore;

const sign = (ttl_s?: number) =>
  recordingLinks(store)({
    guild_id: '1',
    owner_id: null,
    any_owner: true,
    sign: true,
    ...(ttl_s ? { ttl_s } : {}),
  });
const tokenOf = (p: string) => p.split('/')[3]!;

describe('recording links', () => {
  it('signs each file for 24 h by default, and opens only that file', async () => {
    const { links } = await sign();
    expect(links!.files.map((f) => f.file)).toEqual([
      'speakers/Matt (2).ogg',
      'speakers/Matt (2).flac',
      'mixed.ogg',
      'mixed.flac',
      'all.zip',
    ]);
    expect(Date.parse(links!.expires_at) - Date.now()).toBeGreaterThan(86_000_000);
    const ogg = links!.files[0]!;
    expect(ogg.path).toMatch(/\/speakers\/Matt%20\(2\)\.ogg$/);
    const ok = await recordingFile(store)({ token: tokenOf(ogg.path), file: ogg.file });
    expect(ok.status).toBe('ok');
    expect(ok.tracks).toEqual([
      { speaker: 'Matt (2)', blob: `${ID}/1.ogg`, size: 10, content_type: 'audio/ogg' },
    ]);
    expect((await recordingFile(store)({ token: tokenOf(ogg.path), file: 'all.zip' })).status).toBe(
      'invalid',
    );
    const later = tokenOf(ogg.path).replace(/\.(\d+)\./, (_, e: string) => `.${Number(e) + 1}.`);
    expect((await recordingFile(store)({ token: later, file: ogg.file })).status).toBe('invalid');
    expect((await recordingFile(store)({ token: 'nonsense', file: ogg.file })).status).toBe('invalid');
  });

  it('answers expired once the expiry is past, and nothing without an owner or Manage Server', async () => {
    const { links } = await sign(1);
    const zip = links!.files.find((f) => f.file === 'all.zip')!;
    const [id, exp, sig] = tokenOf(zip.path).split('.');
    expect(id).toBe(ID);
    // The same signature checked after its expiry: made by signing at a time one hour ago.
    const realNow = Date.now;
    try {
      Date.now = () => realNow() - 3_600_000;
      const old = await sign(1);
      Date.now = realNow;
      const oldZip = old.links!.files.find((f) => f.file === 'all.zip')!;
      expect((await recordingFile(store)({ token: tokenOf(oldZip.path), file: 'all.zip' })).status).toBe(
        'expired',
      );
    } finally {
      Date.now = realNow;
    }
    expect(Number(exp)).toBeGreaterThan(0);
    expect(sig).toHaveLength(43);
    expect(
      await recordingLinks(store)({ guild_id: '1', owner_id: null, any_owner: false, sign: true }),
    ).toEqual({ sessions: [], links: null });
  });
});
