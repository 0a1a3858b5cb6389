import {
  CODEX_ALIASES_MAX,
  CODEX_DESCRIPTION_MAX,
  CODEX_NAME_MAX,
  tooLongMessage,
  type applyCodexRpc,
  type CodexEntry,
  type CodexEntryPatch,
  type getCodexRpc,
  type mergeCodexEntriesRpc,
  type patchCodexEntryRpc,
  type RpcRequest,
  type RpcResponse,
} from '@chronicler/contracts';
import { ServiceError } from '@chronicler/kit';
import { applyCodex } from '../db/codex-apply.ts';
import type { CodexStore } from '../db/codex-store.ts';
import { bad, groupNotFound } from './group-errors.ts';

const entryNotFound = (): ServiceError => new ServiceError('not_found', 'Codex entry not found');

/** A name or alias as the game master typed it: trimmed, one space between words, not blank, short. */
function checkName(raw: string, what: string): string {
  const name = raw.replace(/\s+/g, ' ').trim();
  if (!name) throw bad(`${what} cannot be empty.`);
  if (name.length > CODEX_NAME_MAX) throw bad(tooLongMessage(what, CODEX_NAME_MAX));
  if ([...name].some((c) => c.charCodeAt(0) < 0x20)) throw bad(`${what} cannot contain control characters.`);
  return name;
}

/** The change, checked and trimmed; nothing to change is refused too (a PATCH that does nothing is a mistake). */
function checkPatch(change: CodexEntryPatch): CodexEntryPatch {
  const out: CodexEntryPatch = {};
  if (change.name !== undefined) out.name = checkName(change.name, 'Name');
  if (change.description !== undefined) {
    const description = change.description.trim();
    if (description.length > CODEX_DESCRIPTION_MAX)
      throw bad(tooLongMessage('Description', CODEX_DESCRIPTION_MAX));
    if (description.includes('\u0000')) throw bad('Description cannot contain NUL characters.');
    out.description = description;
  }
  if (change.aliases !== undefined) {
    if (change.aliases.length > CODEX_ALIASES_MAX)
      throw bad(`An entry has at most ${CODEX_ALIASES_MAX} other names.`);
    const aliases = change.aliases.map((a) => checkName(a, 'Other name'));
    out.aliases = aliases.filter(
      (a, i) => aliases.findIndex((b) => b.toLowerCase() === a.toLowerCase()) === i,
    );
  }
  if (change.kind !== undefined) out.kind = change.kind;
  if (change.visibility !== undefined) out.visibility = change.visibility;
  if (change.hidden !== undefined) out.hidden = change.hidden;
  if (Object.keys(out).length === 0)
    throw bad('Nothing to change: give a name, description, kind, visibility, other names or hidden.');
  return out;
}

/** svc.group.codex: the owner's codex (not_found for another's group); for players, their entries only. */
export const getCodex =
  (store: CodexStore) =>
  async (req: RpcRequest<typeof getCodexRpc>): Promise<RpcResponse<typeof getCodexRpc>> => {
    if (!(await store.owns(req.owner_id, req.id))) throw groupNotFound();
    const players = req.audience === 'players';
    const [entries, sources] = await Promise.all([
      store.entries(req.id, { players, hidden: !players && req.hidden === true }),
      store.sources(req.id),
    ]);
    return { group_id: req.id, entries, sources };
  };

/** svc.group.codex-patch: the game master's change of one entry. */
export const patchCodexEntry =
  (store: CodexStore) =>
  async (req: RpcRequest<typeof patchCodexEntryRpc>): Promise<CodexEntry> => {
    if (!(await store.owns(req.owner_id, req.id))) throw groupNotFound();
    const change = checkPatch(req.change);
    const outcome = await store.patch(req.owner_id, req.id, req.entry_id, change);
    if (outcome === 'not_found') throw entryNotFound();
    if ('conflict' in outcome) {
      throw new ServiceError(
        'conflict',
        `The codex already has an entry named ${outcome.conflict}. Merge the two entries instead.`,
      );
    }
    return outcome;
  };

/** svc.group.codex-merge: entries of the campaign become one. */
export const mergeCodexEntries =
  (store: CodexStore) =>
  async (req: RpcRequest<typeof mergeCodexEntriesRpc>): Promise<CodexEntry> => {
    if (!(await store.owns(req.owner_id, req.id))) throw groupNotFound();
    const ids = [...new Set(req.entry_ids)];
    const into = req.into ?? ids[0];
    if (!into || new Set([into, ...ids]).size < 2) throw bad('Choose at least two entries to merge.');
    const outcome = await store.merge(req.owner_id, req.id, ids, into);
    if (outcome === 'not_found') throw entryNotFound();
    if (outcome === 'too_few') throw bad('Choose at least two entries to merge.');
    if (outcome === 'other_group') throw bad('Entries of different campaigns cannot be merged.');
    return outcome;
  };

/** svc.group.codex-apply: what one session establishes (or which sessions left), once per version. */
export const applyCodexFindings =
  (store: CodexStore) =>
  async (req: RpcRequest<typeof applyCodexRpc>): Promise<RpcResponse<typeof applyCodexRpc>> => {
    const applied = await applyCodex(store, req.owner_id, req.id, req.session, req.removed ?? []);
    if (applied === null) throw groupNotFound();
    return { applied };
  };
