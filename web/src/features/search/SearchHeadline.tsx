import { formatOffset } from '@chronicler/contracts';
import type { SearchHit } from '../../api/search.ts';

/** A hit's excerpt with the found words marked; plain text from the server, never markup. */
export function SearchHeadline({ hit }: { hit: SearchHit }) {
  return (
    <span className="search-headline">
      {hit.headline.map((fragment, index) =>
        fragment.match ? <mark key={index}>{fragment.text}</mark> : <span key={index}>{fragment.text}</span>,
      )}
    </span>
  );
}

const KIND_LABEL: Record<SearchHit['kind'], string> = {
  name: 'Name',
  summary: 'Summary',
  notes: 'Notes',
  line: 'Line',
};

/** Where in the session a hit is: its time for a timed line, else what part it is. */
export function hitPlace(hit: SearchHit): string {
  if (hit.kind === 'line' && hit.seconds !== null) return formatOffset(hit.seconds);
  if (hit.kind === 'line' && hit.line !== null) return `Line ${hit.line + 1}`;
  return KIND_LABEL[hit.kind];
}
