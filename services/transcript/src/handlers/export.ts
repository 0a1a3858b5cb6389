import {
  getGroupRpc,
  LIST_PAGE_MAX,
  type ExportFile,
  type exportGroupRpc,
  type exportTranscriptRpc,
  type RpcRequest,
  type Transcript,
  type TranscriptListItem,
} from '@chronicler/contracts';
import { call, ServiceError, type Bus } from '@chronicler/kit';
import { zipSync, strToU8 } from 'fflate';
import type { LineEditStore } from '../db/line-edits.ts';
import type { LiveStore } from '../db/live-store.ts';
import type { SpeakerNameStore } from '../db/speaker-names.ts';
import type { TranscriptStore } from '../db/store.ts';
import { toDocx } from '../tools/export-docx.ts';
import {
  fileSummary,
  noHtml,
  safeFileName,
  toJson,
  toMarkdown,
  toSrt,
  toText,
  toVtt,
  withLineTimes,
  type SessionExport,
} from '../tools/export-formats.ts';
import { rawSession, sessionLines } from '../tools/session-lines.ts';

export interface ExportDeps {
  store: TranscriptStore;
  live: LiveStore;
  edits: LineEditStore;
  names: SpeakerNameStore;
  bus: Bus;
}

/** What an export shows of one of the owner's sessions. */
async function gather(d: ExportDeps, ownerId: string, id: string): Promise<SessionExport> {
  const session = await rawSession(d.store, d.live, ownerId, id);
  const map = await d.names.map(id);
  const edits = (await d.edits.list(ownerId, id, session.content)) ?? [];
  const notes = (await d.store.getNotes(ownerId, id)) ?? '';
  const originals = new Map(edits.map((e) => [e.lineNo, e.original]));
  return {
    session,
    lines: sessionLines(session.content, map, originals),
    notes,
    speakers: [...map.values()],
  };
}

/** The times to the millisecond of a session's lines: a provider's, or a live session's own. */
async function lineTimes(d: ExportDeps, ownerId: string, session: Transcript) {
  const stored = await d.store.lineTimes(ownerId, session.id);
  if (stored) return stored;
  return session.source === 'live' ? d.live.lineTimes(session.id) : null;
}

const text = (filename: string, contentType: string, body: string, untimed = 0): ExportFile => ({
  filename,
  content_type: contentType,
  encoding: 'utf8',
  body,
  untimed_lines: untimed,
});

/** svc.transcript.export: one session as Markdown, text, SubRip, WebVTT, Word or JSON. */
export const exportTranscript =
  (d: ExportDeps) =>
  async (req: RpcRequest<typeof exportTranscriptRpc>): Promise<ExportFile> => {
    const e = await gather(d, req.owner_id, req.id);
    const name = (ext: string) => safeFileName(e.session.name, e.session.session_timestamp, ext);
    switch (req.format) {
      case 'md':
        return text(name('md'), 'text/markdown; charset=utf-8', toMarkdown(e, 1, req.base_url));
      case 'txt':
        return text(name('txt'), 'text/plain; charset=utf-8', toText(e));
      case 'srt': {
        const srt = toSrt(withLineTimes(e.lines, await lineTimes(d, req.owner_id, e.session)));
        return text(name('srt'), 'application/x-subrip; charset=utf-8', srt.body, srt.untimed);
      }
      case 'vtt': {
        const vtt = toVtt(withLineTimes(e.lines, await lineTimes(d, req.owner_id, e.session)));
        return text(name('vtt'), 'text/vtt; charset=utf-8', vtt.body, vtt.untimed);
      }
      case 'json':
        return text(name('json'), 'application/json; charset=utf-8', toJson(e));
      case 'docx':
        return {
          filename: name('docx'),
          content_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          encoding: 'base64',
          body: (await toDocx(e)).toString('base64'),
          untimed_lines: 0,
        };
    }
  };

/** Every session of the owner's group, oldest first (the order of play). */
export async function groupSessions(
  store: TranscriptStore,
  ownerId: string,
  groupId: string,
): Promise<TranscriptListItem[]> {
  const items: TranscriptListItem[] = [];
  let after = null;
  for (;;) {
    const page = await store.listPage(ownerId, after, LIST_PAGE_MAX, groupId);
    items.push(...page.map((p) => p.item));
    if (page.length < LIST_PAGE_MAX) break;
    after = page.at(-1)!.cursor;
  }
  return items.reverse();
}

/** svc.transcript.export-group: a campaign as one Markdown file, or a zip of one file per session. */
export const exportGroup =
  (d: ExportDeps) =>
  async (req: RpcRequest<typeof exportGroupRpc>): Promise<ExportFile> => {
    // The group service answers not_found for another owner's group.
    const group = await call(d.bus, getGroupRpc, { owner_id: req.owner_id, id: req.id });
    const sessions = await groupSessions(d.store, req.owner_id, group.id);
    const head = [
      `# ${noHtml(group.name)}`,
      '',
      '## Campaign Summary',
      '',
      fileSummary(group.summary, req.base_url) || '_No summary._',
      '',
    ];
    const exports: SessionExport[] = [];
    for (const s of sessions) {
      try {
        exports.push(await gather(d, req.owner_id, s.id));
      } catch (cause) {
        // Deleted between the list and the read: it is not part of the campaign any more.
        if (!(cause instanceof ServiceError && cause.code === 'not_found')) throw cause;
      }
    }
    if (req.format === 'md') {
      const body = [
        ...head,
        `## Sessions (${exports.length})`,
        '',
        ...exports.map((e) => toMarkdown(e, 3, req.base_url)),
      ].join('\n');
      return text(safeFileName(group.name, null, 'md'), 'text/markdown; charset=utf-8', body);
    }
    const files: Record<string, Uint8Array> = {};
    const index = [...head, '## Sessions', ''];
    exports.forEach((e, i) => {
      const base = `${String(i + 1).padStart(3, '0')}-${safeFileName(e.session.name, e.session.session_timestamp, 'md')}`;
      files[base] = strToU8(toMarkdown(e, 1, req.base_url));
      files[base.replace(/\.md$/, '.json')] = strToU8(toJson(e));
      index.push(`- [${noHtml(e.session.name)}](${base})`);
    });
    files['campaign.md'] = strToU8(`${index.join('\n')}\n`);
    return {
      filename: safeFileName(group.name, null, 'zip'),
      content_type: 'application/zip',
      encoding: 'base64',
      body: Buffer.from(zipSync(files)).toString('base64'),
      untimed_lines: 0,
    };
  };
