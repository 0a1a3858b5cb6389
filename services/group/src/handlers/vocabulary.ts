import type {
  GroupVocabulary,
  getGroupVocabularyRpc,
  putGroupVocabularyRpc,
  RpcRequest,
} from '@chronicler/contracts';
import type { Bus, Cache } from '@chronicler/kit';
import type { GroupStore } from '../db/store.ts';
import { groupNotFound } from './group-errors.ts';
import { learnedNames } from './learned-names.ts';
import { checkVocabulary, withoutTerms } from './vocabulary-rules.ts';

async function answer(
  bus: Bus,
  cache: Cache,
  req: { owner_id: string; id: string },
  stored: { terms: string[]; summary: string },
): Promise<GroupVocabulary> {
  const learned = await learnedNames(bus, cache, {
    owner_id: req.owner_id,
    group_id: req.id,
    campaign_summary: stored.summary,
  });
  return { terms: stored.terms, learned: withoutTerms(learned, stored.terms) };
}

/** svc.group.get-vocabulary: the user's terms and the learned names not among them. */
export const getVocabulary =
  (store: GroupStore, bus: Bus, cache: Cache) =>
  async (req: RpcRequest<typeof getGroupVocabularyRpc>): Promise<GroupVocabulary> => {
    const stored = await store.getVocabulary(req.owner_id, req.id);
    if (!stored) throw groupNotFound();
    return answer(bus, cache, req, stored);
  };

/** svc.group.put-vocabulary: replaces the user's terms (checked, see checkVocabulary). */
export const putVocabulary =
  (store: GroupStore, bus: Bus, cache: Cache) =>
  async (req: RpcRequest<typeof putGroupVocabularyRpc>): Promise<GroupVocabulary> => {
    // Another owner's group is not found whatever the terms: checked before the terms are.
    const before = await store.getVocabulary(req.owner_id, req.id);
    if (!before) throw groupNotFound();
    const terms = await store.setVocabulary(req.owner_id, req.id, checkVocabulary(req.terms));
    if (!terms) throw groupNotFound();
    return answer(bus, cache, req, { terms, summary: before.summary });
  };
