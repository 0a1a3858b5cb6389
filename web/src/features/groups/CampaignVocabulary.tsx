import { VOCABULARY_MAX_TERMS, VOCABULARY_TERM_MAX, vocabularyTermKey } from '@chronicler/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type KeyboardEvent } from 'react';
import toast from 'react-hot-toast';
import { getGroupVocabulary, putGroupVocabulary, type GroupVocabulary } from '../../api/groups.ts';
import { errorDetail } from '../../api/http.ts';
import type { GroupSummaryItem } from '../../api/types.ts';
import { CloseIcon, PlusIcon } from '../../components/icons.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { CollapseHeading } from './CollapseHeading.tsx';
import { DraftActions } from '../../components/DraftActions.tsx';

/** Under the group list's key, so whatever refreshes the groups refreshes this too. */
const vocabularyKey = (groupId: string) => ['groups', groupId, 'vocabulary'] as const;

/** Learned names shown before 'Show all': a long campaign learns up to a hundred. */
const LEARNED_PREVIEW = 24;

const sameTerm = (a: string, b: string) => vocabularyTermKey(a) === vocabularyTermKey(b);
const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((t, i) => t === b[i]);

/** Why `term` cannot join `terms`, checked here first with the server's rules; null when it can. */
function refusal(term: string, terms: string[]): string | null {
  if (!term) return 'Type a name first.';
  if (term.length > VOCABULARY_TERM_MAX) return `A term cannot exceed ${VOCABULARY_TERM_MAX} characters.`;
  if (terms.some((t) => sameTerm(t, term))) return `'${term}' is already in your list.`;
  if (terms.length >= VOCABULARY_MAX_TERMS)
    return `Your list cannot have more than ${VOCABULARY_MAX_TERMS} terms.`;
  return null;
}

/**
 * The campaign vocabulary: names a live session of this group sends the speech provider so
 * they come out spelled right. The user's own list (edited here, saved with one PUT) goes
 * first; the names learned from the group's sessions can be added to it with one click.
 */
export function CampaignVocabulary({ group }: { group: GroupSummaryItem }) {
  // Closed at first: a setting made once per campaign, read (and its names learned) on demand.
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<string[] | null>(null);
  const [input, setInput] = useState('');
  const [inputError, setInputError] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const [showAll, setShowAll] = useState(false);
  const bodyId = useId();
  const inputId = useId();
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: vocabularyKey(group.id),
    queryFn: () => getGroupVocabulary(group.id),
    enabled: open,
  });
  const save = useMutation({
    mutationFn: (terms: string[]) => putGroupVocabulary(group.id, terms),
    onSuccess: (saved) => {
      queryClient.setQueryData<GroupVocabulary>(vocabularyKey(group.id), saved);
      setDraft(null);
      setSaveError(null);
      toast.success('Campaign vocabulary saved');
    },
    onError: (error) => {
      setSaveError(errorDetail(error, 'Failed to save the campaign vocabulary'));
      toast.error('Failed to save the campaign vocabulary');
    },
  });

  const stored = query.data?.terms ?? [];
  const terms = draft ?? stored;
  const dirty = draft !== null && !sameList(draft, stored);
  const learned = (query.data?.learned ?? []).filter((name) => !terms.some((t) => sameTerm(t, name)));
  const shownLearned = showAll ? learned : learned.slice(0, LEARNED_PREVIEW);

  const edit = (next: string[]) => {
    setDraft(next);
    setSaveError(null);
  };
  const add = (raw: string): boolean => {
    const term = raw.replace(/\s+/g, ' ').trim();
    const why = refusal(term, terms);
    setInputError(why);
    if (why) return false;
    edit([...terms, term]);
    return true;
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    if (add(input)) setInput('');
  };

  return (
    <section className="card group-section vocabulary">
      <div className="group-section-head">
        <CollapseHeading open={open} bodyId={bodyId} onToggle={() => setOpen((value) => !value)}>
          Campaign Vocabulary
        </CollapseHeading>
      </div>
      <div id={bodyId} hidden={!open} className="group-section-body">
        <p className="muted vocabulary-intro">
          Names the live transcription should get right: characters, NPCs and places of this campaign.
        </p>
        {query.isPending ? (
          <Spinner label="Loading vocabulary..." size="small" />
        ) : query.isError ? (
          <p className="field-error" role="alert">
            {errorDetail(query.error, 'Failed to load the campaign vocabulary')}
          </p>
        ) : (
          <>
            <h3 className="vocabulary-heading">Your terms</h3>
            {terms.length > 0 ? (
              <ul className="chip-list" aria-label="Your terms">
                {terms.map((term) => (
                  <li key={term} className="chip">
                    <span className="chip-text">{term}</span>
                    <button
                      type="button"
                      className="chip-button"
                      aria-label={`Remove ${term}`}
                      title={`Remove ${term}`}
                      onClick={() => edit(terms.filter((t) => t !== term))}
                    >
                      <CloseIcon />
                    </button>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">No terms yet. Add the names your table uses.</p>
            )}
            <label htmlFor={inputId} className="field-label">
              Add a name
            </label>
            <input
              id={inputId}
              className="text-input vocabulary-input"
              value={input}
              maxLength={VOCABULARY_TERM_MAX * 2}
              placeholder="e.g. Vex'ahlia, then Enter"
              aria-invalid={inputError ? true : undefined}
              aria-describedby={inputError ? `${inputId}-error` : undefined}
              onChange={(event) => {
                setInput(event.target.value);
                setInputError(null);
              }}
              onKeyDown={onKeyDown}
            />
            {inputError && (
              <p id={`${inputId}-error`} className="field-error">
                {inputError}
              </p>
            )}
            <DraftActions
              saveLabel="Save vocabulary"
              dirty={dirty}
              saving={save.isPending}
              error={saveError}
              onSave={() => save.mutate(terms)}
              onDiscard={() => {
                setDraft(null);
                setSaveError(null);
              }}
            />

            <h3 className="vocabulary-heading">Learned from your sessions</h3>
            {learned.length > 0 ? (
              <>
                <ul className="chip-list" aria-label="Learned names">
                  {shownLearned.map((name) => (
                    <li key={name}>
                      <button
                        type="button"
                        className="chip chip-learned"
                        aria-label={`Add ${name} to your terms`}
                        title={`Add ${name} to your terms`}
                        onClick={() => add(name)}
                      >
                        <PlusIcon />
                        <span className="chip-text">{name}</span>
                      </button>
                    </li>
                  ))}
                </ul>
                {learned.length > LEARNED_PREVIEW && (
                  <button type="button" className="link-button" onClick={() => setShowAll((value) => !value)}>
                    {showAll ? 'Show fewer' : `Show all ${learned.length}`}
                  </button>
                )}
              </>
            ) : (
              <p className="muted">
                No names learned yet. They appear once sessions of this group have transcripts or summaries.
              </p>
            )}
          </>
        )}
      </div>
    </section>
  );
}
