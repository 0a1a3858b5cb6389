import {
  extractProperNames,
  LEARNED_NAMES_CHARS_PER_SESSION,
  LEARNED_NAMES_MAX,
  LEARNED_NAMES_SESSIONS,
  type groupNamesRpc,
  type RpcRequest,
  type RpcResponse,
} from '@chronicler/contracts';
import type { VocabularyStore } from '../db/vocabulary.ts';

/**
 * A name in a summary counts this many times one in a transcript: summaries are short and
 * name what mattered, transcripts are long and full of table talk.
 */
const SUMMARY_WEIGHT = 3;

/**
 * svc.transcript.group-names: the proper names of the group's newest sessions and of the
 * campaign summary the group service sends along. Computed here, where the texts are, so only
 * the names travel; a group with no sessions of this owner (or another owner's) has none.
 */
export const groupNames =
  (store: VocabularyStore) =>
  async (req: RpcRequest<typeof groupNamesRpc>): Promise<RpcResponse<typeof groupNamesRpc>> => {
    const texts = await store.groupTexts(
      req.owner_id,
      req.group_id,
      LEARNED_NAMES_SESSIONS,
      LEARNED_NAMES_CHARS_PER_SESSION,
    );
    const sources = [
      ...texts.transcripts.map((text) => ({ text })),
      ...[...texts.summaries, req.campaign_summary ?? ''].map((text) => ({ text, weight: SUMMARY_WEIGHT })),
    ];
    const names = extractProperNames(sources, { limit: LEARNED_NAMES_MAX });
    return { names: names.map((n) => n.name) };
  };
