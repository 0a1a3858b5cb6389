import {
  CHARACTER_NAME_MAX,
  LINE_TEXT_MAX,
  tooLongMessage,
  TRANSCRIPT_MAX,
  type editLineRpc,
  type EditLineResult,
  type lineEditsRpc,
  type LineEdits,
  type RpcRequest,
} from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';
import type { LineChange, LineEditStore } from '../db/line-edits.ts';
import type { LiveStore } from '../db/live-store.ts';
import type { SpeakerNameStore } from '../db/speaker-names.ts';
import type { TranscriptStore } from '../db/store.ts';
import { rawSession, sessionLine } from '../tools/session-lines.ts';
import { assertNoNul, bad, transcriptNotFound } from '../validation.ts';

const lineNotFound = () => new ServiceError('not_found', 'Line not found');

function changeOf(req: RpcRequest<typeof editLineRpc>): LineChange {
  if (req.revert) {
    if (req.text !== undefined || req.speaker !== undefined)
      throw bad('Send either revert or new text, not both');
    return { revert: true };
  }
  if (req.text === undefined && req.speaker === undefined)
    throw bad('Nothing to change: send text or speaker');
  if (req.text !== undefined) {
    if (!req.text.trim()) throw bad('Line text cannot be empty.');
    if (req.text.length > LINE_TEXT_MAX) throw bad(tooLongMessage('Line text', LINE_TEXT_MAX));
    assertNoNul(req.text, 'Line text');
  }
  if (req.speaker !== undefined) {
    if (!req.speaker.trim()) throw bad('Speaker cannot be empty.');
    if (/[:\r\n]/.test(req.speaker)) throw bad('A speaker cannot contain a colon or a line break');
    // Counted like the speaker names of the session's map.
    if (req.speaker.trim().length > CHARACTER_NAME_MAX)
      throw bad(tooLongMessage('Speaker', CHARACTER_NAME_MAX));
    assertNoNul(req.speaker, 'Speaker');
  }
  return {
    ...(req.text !== undefined ? { text: req.text } : {}),
    ...(req.speaker !== undefined ? { speaker: req.speaker } : {}),
  };
}

/** svc.transcript.edit-line: a line's text and speaker changed in place, its original kept. */
export const editLine =
  (edits: LineEditStore, names: SpeakerNameStore) =>
  async (req: RpcRequest<typeof editLineRpc>): Promise<EditLineResult> => {
    const change = changeOf(req);
    const lineNo = /^\d{1,9}$/.test(req.line) ? Number(req.line) : 0;
    if (lineNo < 1) {
      if (!(await edits.exists(req.owner_id, req.id))) throw transcriptNotFound();
      throw lineNotFound();
    }
    const outcome = await edits.edit(req.owner_id, req.id, lineNo, change);
    if (outcome.kind === 'missing') throw transcriptNotFound();
    if (outcome.kind === 'no-line') throw lineNotFound();
    if (outcome.kind === 'too-long') throw bad(tooLongMessage('Transcript', TRANSCRIPT_MAX));
    return {
      line: sessionLine(outcome.line, lineNo, await names.map(req.id), outcome.original),
      summary_outdated: outcome.summaryOutdated,
    };
  };

/** svc.transcript.line-edits: the edited lines as they read now, with what they were. */
export const listLineEdits =
  (store: TranscriptStore, live: LiveStore, edits: LineEditStore, names: SpeakerNameStore) =>
  async (req: RpcRequest<typeof lineEditsRpc>): Promise<LineEdits> => {
    const t = await rawSession(store, live, req.owner_id, req.id);
    const stored = (await edits.list(req.owner_id, req.id, t.content)) ?? [];
    const map = await names.map(req.id);
    return { edits: stored.map((e) => sessionLine(e.line, e.lineNo, map, e.original)) };
  };
