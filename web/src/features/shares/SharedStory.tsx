import type { CodexEntry } from '@chronicler/contracts';
import { Markdown } from '../../components/Markdown.tsx';
import { KIND_LABELS } from '../codex/codex-data.ts';

/**
 * A shared character's story or "previously on", read-only: the text (its moments open the
 * link's own session pages) and the codex entries the game master shows players.
 */
export function SharedStory({
  title,
  campaign,
  text,
  entries,
}: {
  title: string;
  campaign: string;
  text: string;
  entries: CodexEntry[];
}) {
  return (
    <>
      <header className="card shared-header">
        <h1 className="page-title">{title}</h1>
        <p className="muted">{campaign}</p>
      </header>
      <section className="card" aria-label={title}>
        <Markdown text={text} className="markdown-body" reader />
      </section>
      {entries.length ? (
        <section className="card" aria-labelledby="shared-codex-title">
          <h2 id="shared-codex-title" className="card-title">
            Codex
          </h2>
          <ul className="shared-codex">
            {entries.map((e) => (
              <li key={e.id}>
                <strong>{e.name}</strong> <span className="muted small">{KIND_LABELS[e.kind].one}</span>
                {e.description ? <p className="small">{e.description}</p> : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}
