import type {
  CharacterRecap,
  Codex,
  CodexEntry,
  CodexEntryPatch,
  CodexKind,
  Previously,
} from '@chronicler/contracts';
import { apiRequest } from './http.ts';

export type { CharacterRecap, Codex, CodexEntry, CodexEntryPatch, CodexKind, Previously };

const base = (groupId: string) => `/groups/${encodeURIComponent(groupId)}`;

/** GET /groups/{id}/codex (hidden entries too when asked); errors are rethrown. */
export function getCodex(groupId: string, hidden: boolean): Promise<Codex> {
  return apiRequest<Codex>(`${base(groupId)}/codex${hidden ? '?hidden=true' : ''}`, {
    errorMessage: 'Failed to load the codex',
  });
}

/** PATCH /groups/{id}/codex/{entryId}: the game master's change; answers the entry as stored. */
export function patchCodexEntry(
  groupId: string,
  entryId: string,
  change: CodexEntryPatch,
): Promise<CodexEntry> {
  return apiRequest<CodexEntry>(`${base(groupId)}/codex/${encodeURIComponent(entryId)}`, {
    method: 'PATCH',
    body: change,
    errorMessage: 'Failed to update the entry',
  });
}

/** POST /groups/{id}/codex/merge: the entries become `into`. */
export function mergeCodexEntries(groupId: string, entryIds: string[], into: string): Promise<CodexEntry> {
  return apiRequest<CodexEntry>(`${base(groupId)}/codex/merge`, {
    method: 'POST',
    body: { entry_ids: entryIds, into },
    errorMessage: 'Failed to merge the entries',
  });
}

/** GET /groups/{id}/character-recap?character=: one character's story. */
export function getCharacterRecap(groupId: string, character: string): Promise<CharacterRecap> {
  return apiRequest<CharacterRecap>(
    `${base(groupId)}/character-recap?character=${encodeURIComponent(character)}`,
    { errorMessage: "Failed to tell the character's story" },
  );
}

/** GET /groups/{id}/previously: "previously on" for the next session. */
export function getPreviously(groupId: string): Promise<Previously> {
  return apiRequest<Previously>(`${base(groupId)}/previously`, {
    errorMessage: 'Failed to write "previously on"',
  });
}
