import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { getCharacterRecap, getPreviously } from '../../api/codex.ts';
import { errorDetail } from '../../api/http.ts';
import { Markdown } from '../../components/Markdown.tsx';
import { Spinner } from '../../components/Spinner.tsx';
import { ShareButton } from '../shares/ShareButton.tsx';

/** A character's story across the campaign, told from what their player was there for. */
function CharacterStory({ groupId, character }: { groupId: string; character: string }) {
  const recap = useQuery({
    queryKey: ['codex', groupId, 'character', character],
    queryFn: () => getCharacterRecap(groupId, character),
    retry: false,
  });
  if (recap.isPending) return <Spinner label={`Telling ${character}'s story...`} size="small" />;
  if (recap.isError)
    return <p role="alert">{errorDetail(recap.error, "Failed to tell the character's story")}</p>;
  return (
    <div className="codex-story">
      <div className="button-row">
        <ShareButton
          kind="character-recap"
          targetId={groupId}
          name={`${recap.data.character}'s story`}
          subject={recap.data.character}
        />
      </div>
      <Markdown text={recap.data.text} className="markdown-body" />
    </div>
  );
}

/**
 * The stories the codex makes: a recap per character (of the party, from the Who Is Who map) and
 * "previously on" for the next session, each shareable with players through a read-only link.
 */
export function StoriesPanel({ groupId, party }: { groupId: string; party: string[] }) {
  const [character, setCharacter] = useState('');
  const [showPrevious, setShowPrevious] = useState(false);
  const previously = useQuery({
    queryKey: ['codex', groupId, 'previously'],
    queryFn: () => getPreviously(groupId),
    enabled: showPrevious,
    retry: false,
  });
  return (
    <section className="card codex-stories" aria-labelledby="codex-stories-title">
      <h2 id="codex-stories-title" className="card-title">
        Stories
      </h2>
      <div className="codex-story-pick">
        <label htmlFor="codex-character">Character recap</label>
        <select
          id="codex-character"
          className="text-input"
          value={character}
          onChange={(e) => setCharacter(e.target.value)}
        >
          <option value="">Choose a character…</option>
          {party.map((name) => (
            <option key={name} value={name}>
              {name}
            </option>
          ))}
        </select>
      </div>
      {party.length === 0 ? (
        <p className="muted small">
          Link speakers to characters in Who Is Who to tell each character's story.
        </p>
      ) : null}
      {character ? <CharacterStory groupId={groupId} character={character} /> : null}
      <div className="button-row codex-previously">
        <button type="button" className="button button-secondary" onClick={() => setShowPrevious((v) => !v)}>
          {showPrevious ? 'Hide "previously on"' : 'Previously on…'}
        </button>
        <ShareButton kind="previously" targetId={groupId} name={'"Previously on"'} />
      </div>
      {showPrevious ? (
        previously.isPending ? (
          <Spinner label='Writing "previously on"...' size="small" />
        ) : previously.isError ? (
          <p role="alert">{errorDetail(previously.error, 'Failed to write "previously on"')}</p>
        ) : (
          <Markdown text={previously.data.text} className="markdown-body" />
        )
      ) : null}
    </section>
  );
}
