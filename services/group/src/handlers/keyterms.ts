import {
  KEYTERMS_MAX,
  KEYTERMS_TOKEN_BUDGET,
  keytermTokens,
  type groupKeytermsRpc,
  type RpcRequest,
  type RpcResponse,
} from '@chronicler/contracts';
import type { Bus, Cache } from '@chronicler/kit';
import type { GroupStore } from '../db/store.ts';
import { groupNotFound } from './group-errors.ts';
import { learnedNames } from './learned-names.ts';
import { withoutTerms } from './vocabulary-rules.ts';

/**
 * The terms sent to the provider, in order, while they fit: at most KEYTERMS_MAX, and within
 * KEYTERMS_TOKEN_BUDGET (Deepgram refuses a stream whose keyterms pass 500 tokens). A term
 * that does not fit is skipped and a shorter one after it may still go.
 */
export function capKeyterms(terms: string[]): string[] {
  const sent: string[] = [];
  let tokens = 0;
  for (const term of terms) {
    if (sent.length === KEYTERMS_MAX) break;
    const cost = keytermTokens(term);
    if (tokens + cost > KEYTERMS_TOKEN_BUDGET) continue;
    sent.push(term);
    tokens += cost;
  }
  return sent;
}

/** svc.group.keyterms: the user's terms first, then the learned names, capped for the provider. */
export const groupKeyterms =
  (store: GroupStore, bus: Bus, cache: Cache) =>
  async (req: RpcRequest<typeof groupKeytermsRpc>): Promise<RpcResponse<typeof groupKeytermsRpc>> => {
    const stored = await store.getVocabulary(req.owner_id, req.group_id);
    if (!stored) throw groupNotFound();
    const learned = withoutTerms(
      await learnedNames(bus, cache, { ...req, campaign_summary: stored.summary }),
      stored.terms,
    );
    return {
      keyterms: capKeyterms([...stored.terms, ...learned]),
      user_terms: stored.terms,
      learned_terms: learned,
    };
  };
