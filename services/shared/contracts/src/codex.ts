/**
 * The campaign codex: the people, places, items, factions and open threads of a campaign, each
 * linked to the moments of the sessions that name it. The group service keeps it (schema
 * `group`, tables codex_*); the summary service fills it after each session (an AI model's
 * structured extraction, or the offline engine's reading of the transcript), and the game
 * master's own edits and merges outlive every later extraction.
 */
import { Type, type Static } from '@sinclair/typebox';
import { rpc } from './rpc.ts';
import { formatOffset } from './transcript-lines.ts';

export const CodexKindSchema = Type.Union([
  Type.Literal('person'),
  Type.Literal('place'),
  Type.Literal('item'),
  Type.Literal('faction'),
  Type.Literal('thread'),
]);
export type CodexKind = Static<typeof CodexKindSchema>;
export const CODEX_KINDS: readonly CodexKind[] = ['person', 'place', 'item', 'faction', 'thread'];

/** Who may read an entry: the game master only (a secret), or the players too (shared links). */
export const CodexVisibilitySchema = Type.Union([Type.Literal('gm'), Type.Literal('players')]);
export type CodexVisibility = Static<typeof CodexVisibilitySchema>;

/** The longest entry name and alias, after trimming. */
export const CODEX_NAME_MAX = 80;
/** The longest entry description. */
export const CODEX_DESCRIPTION_MAX = 2_000;
/** The most aliases one entry keeps. */
export const CODEX_ALIASES_MAX = 20;
/** The most entries one merge takes. */
export const CODEX_MERGE_MAX = 20;
/** The most mentions an entry keeps per session (spread over the session); the count is kept whole. */
export const CODEX_MENTIONS_PER_SESSION = 12;
/** The most entries one session's extraction may bring. */
export const CODEX_FOUND_MAX = 300;

/** A moment of a session that names an entry: its line (the viewer's, from 0), time and link. */
export const CodexMentionSchema = Type.Object({
  transcript_id: Type.String(),
  /** The line's index among the session text's non-blank lines (as search's `line`). */
  line: Type.Integer({ minimum: 0 }),
  /** Seconds from the session start; null for a line without a time. */
  seconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  /** The web app's path to the moment: /sessions/{id}#t=HH:MM:SS, or #line=N without a time. */
  link: Type.String(),
});
export type CodexMention = Static<typeof CodexMentionSchema>;

/** The session an entry was first or last named in. */
export const CodexSeenSchema = Type.Object({
  transcript_id: Type.String(),
  session_name: Type.String(),
  session_timestamp: Type.String(),
  link: Type.String(),
});
export type CodexSeen = Static<typeof CodexSeenSchema>;

export const CodexEntrySchema = Type.Object({
  id: Type.String(),
  kind: CodexKindSchema,
  name: Type.String(),
  aliases: Type.Array(Type.String()),
  description: Type.String(),
  visibility: CodexVisibilitySchema,
  /** Hidden by the game master: kept (a later extraction does not bring it back), not listed by default. */
  hidden: Type.Boolean(),
  /** Whether the game master changed it (its changed fields are never overwritten by an extraction). */
  edited: Type.Boolean(),
  /** How often the sessions name it (all of them, where `mentions` keeps a spread). */
  mention_count: Type.Integer({ minimum: 0 }),
  first_seen: Type.Union([CodexSeenSchema, Type.Null()]),
  last_seen: Type.Union([CodexSeenSchema, Type.Null()]),
  mentions: Type.Array(CodexMentionSchema),
});
export type CodexEntry = Static<typeof CodexEntrySchema>;

/** The party as the codex shows it apart from the people met: the Who Is Who map. */
export const CodexPartyMemberSchema = Type.Object({ speaker: Type.String(), character: Type.String() });

/** GET /api/groups/{id}/codex. `updating`: sessions are being read into it right now. */
export const CodexSchema = Type.Object({
  group_id: Type.String(),
  entries: Type.Array(CodexEntrySchema),
  party: Type.Array(CodexPartyMemberSchema),
  updating: Type.Boolean(),
  /** Sessions of the campaign read into the codex, of those it has. */
  sessions_read: Type.Integer({ minimum: 0 }),
  sessions_total: Type.Integer({ minimum: 0 }),
});
export type Codex = Static<typeof CodexSchema>;

/** GET /api/groups/{id}/codex's query: hidden entries too with `hidden=true`. */
export const CodexQuerySchema = Type.Object({
  hidden: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])),
});

/**
 * PATCH /api/groups/{id}/codex/{entryId}: what the game master changes. Names and descriptions
 * are checked by the group service (in words); the schema bounds the request's size only.
 */
export const CodexEntryPatchSchema = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 1_000 })),
    description: Type.Optional(Type.String({ maxLength: 20_000 })),
    kind: Type.Optional(CodexKindSchema),
    visibility: Type.Optional(CodexVisibilitySchema),
    hidden: Type.Optional(Type.Boolean()),
    aliases: Type.Optional(Type.Array(Type.String({ maxLength: 1_000 }), { maxItems: 100 })),
  },
  { additionalProperties: false },
);
export type CodexEntryPatch = Static<typeof CodexEntryPatchSchema>;

/** POST /api/groups/{id}/codex/merge: the entries become the first one (`into` when given). */
export const CodexMergeBodySchema = Type.Object(
  {
    entry_ids: Type.Array(Type.String({ maxLength: 100 }), { maxItems: 100 }),
    into: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);
export type CodexMergeBody = Static<typeof CodexMergeBodySchema>;

export const CodexEntryParamsSchema = Type.Object({ id: Type.String(), entryId: Type.String() });

/** A mention as an extraction finds it: a line of the session and its time. */
export const FoundMentionSchema = Type.Object({
  line: Type.Integer({ minimum: 0 }),
  seconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
});

/** What one session's extraction found: an entry's name, kind, other names, a description and where it is named. */
export const CodexFindingSchema = Type.Object({
  kind: CodexKindSchema,
  name: Type.String({ minLength: 1, maxLength: CODEX_NAME_MAX }),
  aliases: Type.Array(Type.String({ minLength: 1, maxLength: CODEX_NAME_MAX }), {
    maxItems: CODEX_ALIASES_MAX,
  }),
  description: Type.String({ maxLength: CODEX_DESCRIPTION_MAX }),
  /** How often the session names it. */
  count: Type.Integer({ minimum: 0 }),
  mentions: Type.Array(FoundMentionSchema, { maxItems: CODEX_MENTIONS_PER_SESSION }),
});
export type CodexFinding = Static<typeof CodexFindingSchema>;

/** An entry as extractions are given it: the codex so far, for names to be recognised again. */
export const KnownEntrySchema = Type.Object({
  kind: CodexKindSchema,
  name: Type.String(),
  aliases: Type.Array(Type.String()),
  description: Type.String(),
  /** Sessions that name it. */
  sessions: Type.Integer({ minimum: 0 }),
  /** Set by the game master: its name and kind are the truth, whatever the text suggests. */
  confirmed: Type.Boolean(),
  hidden: Type.Boolean(),
});
export type KnownEntry = Static<typeof KnownEntrySchema>;

/** What the codex has read: each session and the content version it was read at. */
export const CodexSourceSchema = Type.Object({ transcript_id: Type.String(), version: Type.String() });

/**
 * svc.group.codex: the owner's campaign codex (not_found for another owner's group). `audience`
 * players answers the entries marked for players only (what a shared link shows). `sources`: the
 * sessions read and their versions, for whoever keeps it up to date.
 */
export const getCodexRpc = rpc(
  'group',
  'codex',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    audience: Type.Optional(Type.Union([Type.Literal('gm'), Type.Literal('players')])),
    hidden: Type.Optional(Type.Boolean()),
  }),
  Type.Object({
    group_id: Type.String(),
    entries: Type.Array(CodexEntrySchema),
    sources: Type.Array(CodexSourceSchema),
  }),
);

/** svc.group.codex-patch: one entry changed by the game master; answers it as stored. */
export const patchCodexEntryRpc = rpc(
  'group',
  'codex-patch',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    entry_id: Type.String(),
    change: CodexEntryPatchSchema,
  }),
  CodexEntrySchema,
);

/** svc.group.codex-merge: entries of one campaign become one (the others' names its aliases). */
export const mergeCodexEntriesRpc = rpc(
  'group',
  'codex-merge',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    entry_ids: Type.Array(Type.String(), { maxItems: 100 }),
    into: Type.Optional(Type.String()),
  }),
  CodexEntrySchema,
);

/**
 * svc.group.codex-apply: what one session (at one content version) establishes, replacing what
 * an earlier version of it had found; a version already applied changes nothing. `removed`:
 * sessions that left the campaign (or were deleted), whose mentions go.
 */
export const applyCodexRpc = rpc(
  'group',
  'codex-apply',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    session: Type.Optional(
      Type.Object({
        transcript_id: Type.String({ minLength: 1 }),
        version: Type.String({ minLength: 1, maxLength: 128 }),
        name: Type.String(),
        session_timestamp: Type.String(),
        found: Type.Array(CodexFindingSchema, { maxItems: CODEX_FOUND_MAX }),
      }),
    ),
    removed: Type.Optional(Type.Array(Type.String(), { maxItems: 1_000 })),
  }),
  Type.Object({ applied: Type.Boolean() }),
);

/**
 * svc.summary.codex-refresh: reads the campaign's sessions that the codex has not read at their
 * current version (one call chain per version). `wait` false answers at once with how many are
 * left to read, the reading going on behind.
 */
export const refreshCodexRpc = rpc(
  'summary',
  'codex-refresh',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    wait: Type.Optional(Type.Boolean()),
  }),
  Type.Object({ pending: Type.Integer({ minimum: 0 }), read: Type.Integer(), total: Type.Integer() }),
);

/** Where a moment of a session opens in the web app: its time, or its line when it has none. */
export const momentLink = (transcriptId: string, line: number, seconds: number | null): string =>
  seconds !== null
    ? `/sessions/${transcriptId}#t=${formatOffset(seconds)}`
    : `/sessions/${transcriptId}#line=${line}`;

/** A session of a campaign as the codex keeper sees it: which version of its text there is to read. */
export const ContentVersionSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  session_timestamp: Type.String(),
  /** A digest of the name, the text and the speakers' names, computed where the text is. */
  version: Type.String(),
});
export type ContentVersion = Static<typeof ContentVersionSchema>;

/**
 * svc.transcript.content-versions: the ended sessions with a text of one of the owner's groups
 * (or of the group `transcript_id` is in), each with a digest of what it says, without the texts
 * crossing the bus. `group_id` is '' when the transcript has no group.
 */
export const contentVersionsRpc = rpc(
  'transcript',
  'content-versions',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    group_id: Type.Optional(Type.String()),
    transcript_id: Type.Optional(Type.String()),
  }),
  Type.Object({ group_id: Type.String(), sessions: Type.Array(ContentVersionSchema) }),
);
