import { CHARACTER_LINKS_MAX, CHARACTER_NAME_MAX } from '@chronicler/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import toast from 'react-hot-toast';
import {
  getGroupCharacters,
  putGroupCharacters,
  type CharacterLink,
  type GroupCharacters,
} from '../../api/characters.ts';
import { errorDetail } from '../../api/http.ts';
import type { GroupSummaryItem } from '../../api/types.ts';
import { CloseIcon, PlusIcon } from '../../components/icons.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { characterSuggestions } from './character-suggestions.ts';
import { CollapseHeading } from './CollapseHeading.tsx';
import { DraftActions } from '../../components/DraftActions.tsx';

/** Under the group list's key, so whatever refreshes the groups refreshes this too. */
const charactersKey = (groupId: string) => ['groups', groupId, 'characters'] as const;

const sameSpeaker = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
const sameMap = (a: CharacterLink[], b: CharacterLink[]) =>
  a.length === b.length && a.every((l, i) => l.speaker === b[i]!.speaker && l.character === b[i]!.character);

/** Why a link cannot join `links`, with the server's rules; null when it can. */
function refusal(link: CharacterLink, links: CharacterLink[]): string | null {
  if (!link.speaker || !link.character) return 'Fill in both the speaker and the character.';
  if (link.speaker.length > CHARACTER_NAME_MAX || link.character.length > CHARACTER_NAME_MAX)
    return `Names cannot exceed ${CHARACTER_NAME_MAX} characters.`;
  if (links.some((l) => sameSpeaker(l.speaker, link.speaker)))
    return `${link.speaker} already plays someone.`;
  if (links.length >= CHARACTER_LINKS_MAX)
    return `The map cannot have more than ${CHARACTER_LINKS_MAX} links.`;
  return null;
}

/**
 * Who is who in the campaign: which speaker (a player at the table, as the transcripts tag
 * them) plays which character. Chat, summaries and planning use it, so a question naming a
 * character finds its player's lines. Suggestions inferred from the group's sessions can be
 * taken with one click; the user's map is saved with one PUT.
 */
export function CharacterMap({ group }: { group: GroupSummaryItem }) {
  // Closed at first: reading the suggestions reads the group's latest sessions.
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState<CharacterLink[] | null>(null);
  const [speaker, setSpeaker] = useState('');
  const [character, setCharacter] = useState('');
  const [inputError, setInputError] = useState<string | null>(null);
  const [saveError, setSaveError] = useState<string | null>(null);
  const bodyId = useId();
  const speakerId = useId();
  const characterId = useId();
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: charactersKey(group.id),
    queryFn: () => getGroupCharacters(group.id),
    enabled: open,
  });
  const save = useMutation({
    mutationFn: (links: CharacterLink[]) => putGroupCharacters(group.id, links),
    onSuccess: (saved) => {
      queryClient.setQueryData<GroupCharacters>(charactersKey(group.id), saved);
      setDraft(null);
      setSaveError(null);
      toast.success('Who is who saved');
    },
    onError: (error) => {
      setSaveError(errorDetail(error, 'Failed to save who is who'));
      toast.error('Failed to save who is who');
    },
  });

  const stored = query.data?.links ?? [];
  const links = draft ?? stored;
  const dirty = draft !== null && !sameMap(draft, stored);
  const suggestions = (query.data?.inferred ?? []).filter(
    (s) => !links.some((l) => sameSpeaker(l.speaker, s.speaker)),
  );

  const edit = (next: CharacterLink[]) => {
    setDraft(next);
    setSaveError(null);
  };
  const add = (raw: CharacterLink): boolean => {
    const link = { speaker: raw.speaker.trim(), character: raw.character.replace(/\s+/g, ' ').trim() };
    const why = refusal(link, links);
    setInputError(why);
    if (why) return false;
    edit([...links, link]);
    return true;
  };
  const onAdd = (event: FormEvent) => {
    event.preventDefault();
    if (add({ speaker, character })) {
      setSpeaker('');
      setCharacter('');
    }
  };

  return (
    <section className="card group-section character-map">
      <div className="group-section-head">
        <CollapseHeading open={open} bodyId={bodyId} onToggle={() => setOpen((value) => !value)}>
          Who Is Who
        </CollapseHeading>
      </div>
      <div id={bodyId} hidden={!open} className="group-section-body">
        <p className="muted">
          Which player plays which character. Chat, summaries and planning use it: players speak in the
          transcripts, while questions and stories name characters.
        </p>
        {query.isPending ? (
          <Spinner label="Loading who is who..." size="small" />
        ) : query.isError ? (
          <p className="field-error" role="alert">
            {errorDetail(query.error, 'Failed to load who is who')}
          </p>
        ) : (
          <>
            {links.length > 0 ? (
              <ul className="chip-list" aria-label="Who is who">
                {links.map((l) => (
                  <li key={l.speaker} className="chip">
                    <span className="chip-text">
                      {l.speaker} plays <strong>{l.character}</strong>
                    </span>
                    <button
                      type="button"
                      className="chip-button"
                      aria-label={`Remove ${l.speaker} as ${l.character}`}
                      title={`Remove ${l.speaker} as ${l.character}`}
                      onClick={() => edit(links.filter((x) => x !== l))}
                    >
                      <CloseIcon />
                    </button>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">No one linked yet. Add who plays whom, or take a suggestion below.</p>
            )}
            <form className="character-map-form" onSubmit={onAdd}>
              <label htmlFor={speakerId} className="field-label">
                Speaker
              </label>
              <input
                id={speakerId}
                className="text-input"
                value={speaker}
                maxLength={CHARACTER_NAME_MAX * 2}
                placeholder="e.g. LAURA"
                onChange={(event) => {
                  setSpeaker(event.target.value);
                  setInputError(null);
                }}
              />
              <label htmlFor={characterId} className="field-label">
                Character
              </label>
              <input
                id={characterId}
                className="text-input"
                value={character}
                maxLength={CHARACTER_NAME_MAX * 2}
                placeholder="e.g. Vex'ahlia"
                aria-invalid={inputError ? true : undefined}
                aria-describedby={inputError ? `${characterId}-error` : undefined}
                onChange={(event) => {
                  setCharacter(event.target.value);
                  setInputError(null);
                }}
              />
              <button type="submit" className="button button-secondary">
                <PlusIcon />
                Add
              </button>
            </form>
            {inputError && (
              <p id={`${characterId}-error`} className="field-error">
                {inputError}
              </p>
            )}
            <DraftActions
              saveLabel="Save who is who"
              dirty={dirty}
              saving={save.isPending}
              error={saveError}
              onSave={() => save.mutate(links)}
              onDiscard={() => {
                setDraft(null);
                setSaveError(null);
              }}
            />
            <h3 className="vocabulary-heading">Suggested from your sessions</h3>
            {suggestions.length > 0 ? (
              <ul className="chip-list" aria-label="Suggested links">
                {characterSuggestions(suggestions).map(({ link, text, label, guess }) => (
                  <li key={link.speaker}>
                    <button
                      type="button"
                      className={guess ? 'chip chip-learned chip-guess' : 'chip chip-learned'}
                      aria-label={label}
                      title={link.evidence}
                      onClick={() => add(link)}
                    >
                      <PlusIcon />
                      <span className="chip-text">{text}</span>
                    </button>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">No suggestions: the sessions don't say who plays whom.</p>
            )}
          </>
        )}
      </div>
    </section>
  );
}
