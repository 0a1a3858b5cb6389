import {
  RECORDING_LINK_TTL_S,
  type recordingFileRpc,
  type RecordingFile,
  type recordingLinksRpc,
  type RpcRequest,
  type RpcResponse,
} from '@chronicler/contracts';
import { MIME_BY_FORMAT, type AudioFormat } from '@chronicler/speech';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RecordingStore } from '../db/recordings.ts';

const sign = (key: Buffer, id: string, file: string, exp: number): string =>
  createHmac('sha256', key).update(`${id}\n${file}\n${exp}`).digest('base64url');

/** The files of a session's recording: each speaker's track as kept and as FLAC, the mix, the zip. */
function filesOf(speakers: string[]): { file: string; speaker: string | null; url: string }[] {
  return [
    ...speakers.flatMap((s) =>
      ['ogg', 'flac'].map((ext) => ({
        file: `speakers/${s}.${ext}`,
        speaker: s,
        url: `speakers/${encodeURIComponent(s)}.${ext}`,
      })),
    ),
    ...['mixed.ogg', 'mixed.flac', 'all.zip'].map((f) => ({ file: f, speaker: null, url: f })),
  ];
}

/**
 * svc.transcript.recording-links: a server's bot sessions with kept tracks for /recording
 * (the caller's, or anyone's for a member who can manage the server), and with `sign` the
 * first one's download links, each signed for one file until its expiry.
 */
export const recordingLinks =
  (store: RecordingStore) =>
  async (req: RpcRequest<typeof recordingLinksRpc>): Promise<RpcResponse<typeof recordingLinksRpc>> => {
    const ownerFilter = req.any_owner ? null : req.owner_id;
    if (!req.any_owner && ownerFilter === null) return { sessions: [], links: null };
    const sessions = await store.ofGuild(req.guild_id, ownerFilter, {
      ...(req.q ? { q: req.q } : {}),
      ...(req.id ? { id: req.id } : {}),
      limit: req.limit ?? 25,
    });
    const first = sessions[0];
    if (!req.sign || !first) return { sessions, links: null };
    const kept = await store.tracksOf(first.transcript_id);
    if (!kept || kept.tracks.length === 0) return { sessions, links: null };
    const key = await store.signingKey();
    const exp = Math.floor(Date.now() / 1000) + (req.ttl_s ?? RECORDING_LINK_TTL_S);
    const id = first.transcript_id;
    const files: RecordingFile[] = filesOf(kept.tracks.map((t) => t.speaker)).map((f) => ({
      file: f.file,
      speaker: f.speaker,
      path: `/api/recordings/${id}.${exp}.${sign(key, id, f.file, exp)}/${f.url}`,
    }));
    return { sessions, links: { transcript_id: id, expires_at: new Date(exp * 1000).toISOString(), files } };
  };

const refused = { status: 'invalid' as const, name: '', tracks: [] };

/** svc.transcript.recording-file: whether a link's token opens `file`, and what to serve from. */
export const recordingFile =
  (store: RecordingStore) =>
  async (req: RpcRequest<typeof recordingFileRpc>): Promise<RpcResponse<typeof recordingFileRpc>> => {
    const m = /^([0-9a-f-]{36})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(req.token);
    if (!m) return refused;
    const [, id, expText, sig] = m as unknown as [string, string, string, string];
    const exp = Number(expText);
    const expected = Buffer.from(sign(await store.signingKey(), id, req.file, exp));
    const given = Buffer.from(sig);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return refused;
    if (exp * 1000 <= Date.now()) return { status: 'expired', name: '', tracks: [] };
    const kept = await store.tracksOf(id);
    if (!kept || kept.tracks.length === 0) return refused;
    const speaker = /^speakers\/(.+)\.(ogg|flac)$/.exec(req.file)?.[1];
    if (speaker !== undefined && !kept.tracks.some((t) => t.speaker === speaker)) return refused;
    return {
      status: 'ok',
      name: kept.name,
      tracks: kept.tracks.map((t) => ({
        speaker: t.speaker,
        blob: t.blob,
        size: t.size,
        content_type: MIME_BY_FORMAT[t.format as AudioFormat] ?? 'application/octet-stream',
      })),
    };
  };
