import { Type, type Static } from '@sinclair/typebox';
import { rpc } from './rpc.ts';

/** Longest search query (characters); a longer one is refused, never cut. */
export const SEARCH_QUERY_MAX = 200;
/** Hits per page of GET /api/search when no limit is given. */
export const SEARCH_PAGE_DEFAULT = 20;
/** Most hits one page may ask for. */
export const SEARCH_PAGE_MAX = 100;

/** Where in a session a hit was found. */
export const SearchHitKindSchema = Type.Union([
  Type.Literal('name'),
  Type.Literal('summary'),
  Type.Literal('notes'),
  Type.Literal('line'),
]);
export type SearchHitKind = Static<typeof SearchHitKindSchema>;

/** A piece of a highlighted excerpt: `match` marks the words the query found. */
export const SearchFragmentSchema = Type.Object({ text: Type.String(), match: Type.Boolean() });
export type SearchFragment = Static<typeof SearchFragmentSchema>;

/** One hit of GET /api/search: a session's name, summary, notes or one line of its text. */
export const SearchHitSchema = Type.Object({
  transcript_id: Type.String(),
  transcript_name: Type.String(),
  /** The session's group id, '' when it has none. */
  group_id: Type.String(),
  session_timestamp: Type.String(),
  kind: SearchHitKindSchema,
  /** The line's index among the text's non-blank lines (the viewer's line), null for other kinds. */
  line: Type.Union([Type.Integer(), Type.Null()]),
  /** The line's time in seconds from the session start, when the line has one. */
  seconds: Type.Union([Type.Integer(), Type.Null()]),
  /** The excerpt, highlighted by ts_headline, as plain-text fragments (no markup to trust). */
  headline: Type.Array(SearchFragmentSchema),
  /** The web app's path to the moment: /sessions/{id}#t=HH:MM:SS, #line=N, or the notes page. */
  link: Type.String(),
  rank: Type.Number(),
});
export type SearchHit = Static<typeof SearchHitSchema>;

/** GET /api/search's answer: hits best first, and the `after` cursor of the next page (null after the last). */
export const SearchResultsSchema = Type.Object({
  hits: Type.Array(SearchHitSchema),
  next: Type.Union([Type.String(), Type.Null()]),
});
export type SearchResults = Static<typeof SearchResultsSchema>;

/** GET /api/search's query; limit is text, checked by the gateway like a list's. */
export const SearchQuerySchema = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 1000 })),
  group: Type.Optional(Type.String({ maxLength: 200 })),
  limit: Type.Optional(Type.String({ maxLength: 10 })),
  after: Type.Optional(Type.String({ maxLength: 1000 })),
});
export type SearchQuery = Static<typeof SearchQuerySchema>;

/** svc.transcript.search: one page of the owner's hits for a query, ranked. */
export const searchTranscriptsRpc = rpc(
  'transcript',
  'search',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    q: Type.String({ minLength: 1, maxLength: SEARCH_QUERY_MAX }),
    group_id: Type.Optional(Type.String()),
    limit: Type.Integer({ minimum: 1, maximum: SEARCH_PAGE_MAX }),
    after: Type.Optional(Type.String({ maxLength: 1000 })),
  }),
  SearchResultsSchema,
);
