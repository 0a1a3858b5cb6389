import { VOCABULARY_MAX_TERMS, VOCABULARY_TERM_MAX, vocabularyTermKey } from '@chronicler/contracts';
import { bad } from './group-errors.ts';

const shown = (term: string): string => (term.length > 20 ? `${term.slice(0, 20)}...` : term);

/**
 * The user's list as stored: each term trimmed (inner runs of spaces made one), repeats
 * ignoring case and apostrophe shape dropped (the first spelling stays), then the limits checked. A refusal names
 * the rule and, for a bad term, the term.
 */
export function checkVocabulary(terms: string[]): string[] {
  const kept: string[] = [];
  const seen = new Set<string>();
  for (const raw of terms) {
    const term = raw.replace(/\s+/g, ' ').trim();
    if (!term) throw bad('Vocabulary terms cannot be empty');
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(term)) throw bad('Vocabulary terms cannot contain control characters');
    if (term.length > VOCABULARY_TERM_MAX) {
      throw bad(`Vocabulary term '${shown(term)}' cannot exceed ${VOCABULARY_TERM_MAX} characters`);
    }
    const key = vocabularyTermKey(term);
    if (seen.has(key)) continue;
    seen.add(key);
    kept.push(term);
  }
  if (kept.length > VOCABULARY_MAX_TERMS) {
    throw bad(`Vocabulary cannot have more than ${VOCABULARY_MAX_TERMS} terms`);
  }
  return kept;
}

/** `names` without those already in `terms`, ignoring case. */
export function withoutTerms(names: string[], terms: string[]): string[] {
  const taken = new Set(terms.map(vocabularyTermKey));
  return names.filter((n) => !taken.has(vocabularyTermKey(n)));
}
