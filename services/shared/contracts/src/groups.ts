import { Type, type Static } from '@sinclair/typebox';
import { busEvent } from './events.ts';
import { OkSchema, OwnedIdRequestSchema, PageRequestFields, pageOf } from './owner-scoped.ts';
import { rpc } from './rpc.ts';

// The name extractor behind the learned campaign vocabulary (index.ts exports this file).
export * from './campaign-names.ts';

/** Longest group (campaign) name, counted like SESSION_NAME_MAX. */
export const GROUP_NAME_MAX = 100;

/** Longest campaign summary in characters (written by hand or generated), like a session's. */
export const CAMPAIGN_SUMMARY_MAX = 10_000;

/** A group name as the gateway accepts it in a request body, like SessionNameField. */
export const GroupNameField = Type.Optional(Type.String({ maxLength: GROUP_NAME_MAX, title: 'Group name' }));

/** A group (campaign). `id` and `group_id` are the same value; routes use group_id. */
export const GroupSchema = Type.Object({
  id: Type.String(),
  group_id: Type.String(),
  name: Type.String(),
  session_ids: Type.Array(Type.String()),
  summary: Type.String(),
  llm_summary: Type.String(),
  summary_generated_at: Type.Union([Type.String(), Type.Null()]),
});
export type Group = Static<typeof GroupSchema>;

/** svc.group.list: one page of the owner's groups, oldest first (ties by id), with their session ids. */
export const listGroupsRpc = rpc('group', 'list', Type.Object(PageRequestFields), pageOf(GroupSchema));

export const createGroupRpc = rpc(
  'group',
  'create',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), name: Type.Optional(Type.String()) }),
  GroupSchema,
);

export const updateGroupRpc = rpc(
  'group',
  'update',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    name: Type.Optional(Type.String()),
    summary: Type.Optional(Type.String()),
  }),
  GroupSchema,
);

/** svc.group.delete: deletes the group, then publishes evt.group.deleted (durable). */
export const deleteGroupRpc = rpc('group', 'delete', OwnedIdRequestSchema, OkSchema);

/** svc.group.get: one of the owner's groups with its session ids (not_found for any other). */
export const getGroupRpc = rpc('group', 'get', OwnedIdRequestSchema, GroupSchema);

/** svc.group.exists: whether the id is one of the owner's groups (for assign-group). */
export const groupExistsRpc = rpc(
  'group',
  'exists',
  OwnedIdRequestSchema,
  Type.Object({ exists: Type.Boolean() }),
);

/** Durable stream of group events, published by the group service. */
export const GROUP_EVENTS_STREAM = 'GROUP_EVENTS';
export const groupDeletedEvent = busEvent(
  'group',
  'deleted',
  Type.Object({ group_id: Type.String(), owner_id: Type.String() }),
);
/**
 * Kept 7 days: consumers ack within seconds, and the window only bounds what an outage
 * can leave behind (the in-process bus holds a stream's messages in memory until then).
 */
export const groupEventsStream = {
  name: GROUP_EVENTS_STREAM,
  subjects: ['evt.group.>'],
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
};

/** The most terms a group's own vocabulary list holds. */
export const VOCABULARY_MAX_TERMS = 200;
/** The longest vocabulary term, counted after trimming. */
export const VOCABULARY_TERM_MAX = 50;
/**
 * The most keyterms sent to the speech provider for one stream: Deepgram's keyterm prompting
 * takes up to 100 terms (and 500 tokens across them); AssemblyAI's streaming keyterms_prompt
 * takes a list of the same order. The user's own terms go first, so they are the last to be cut.
 */
export const KEYTERMS_MAX = 100;
/**
 * A conservative budget under Deepgram's 500 tokens across all keyterms: fantasy names split
 * into short tokens, so each term is counted as one token per two characters (see keytermTokens).
 */
export const KEYTERMS_TOKEN_BUDGET = 450;
/** The estimate of a keyterm's tokens that KEYTERMS_TOKEN_BUDGET is spent with. */
export const keytermTokens = (term: string): number => Math.ceil(term.length / 2);

/**
 * Two vocabulary terms are the same when their keys are: case and the apostrophe's shape
 * (Vex’ahlia, vex'ahlia) do not make another name.
 */
export const vocabularyTermKey = (term: string): string =>
  term.replace(/[\u2018\u2019\u02bc`]/g, "'").toLocaleLowerCase('en-US');

/** A group's campaign vocabulary: the user's own list and the names learned from its sessions. */
export const GroupVocabularySchema = Type.Object({
  terms: Type.Array(Type.String(), { description: "The user's own terms, in their order." }),
  learned: Type.Array(Type.String(), {
    description:
      "Names learned from the group's recent transcripts and summaries, most frequent first, without the user's terms.",
  }),
});
export type GroupVocabulary = Static<typeof GroupVocabularySchema>;

/**
 * The terms as a request carries them. The group service applies the rules (at most
 * VOCABULARY_MAX_TERMS after trimming and case-insensitive de-duplication, each 1 to
 * VOCABULARY_TERM_MAX characters) and words the refusals; the schema only bounds the size.
 */
export const VocabularyTermsField = Type.Array(Type.String({ maxLength: 1000 }), {
  maxItems: 1000,
  title: 'Vocabulary',
  description: `Up to ${VOCABULARY_MAX_TERMS} terms of 1-${VOCABULARY_TERM_MAX} characters after trimming; repeats (ignoring case) are dropped.`,
});

/** svc.group.get-vocabulary: the vocabulary of one of the owner's groups (not_found for any other). */
export const getGroupVocabularyRpc = rpc(
  'group',
  'get-vocabulary',
  OwnedIdRequestSchema,
  GroupVocabularySchema,
);

/** svc.group.put-vocabulary: replaces the user's list; answers the vocabulary as stored. */
export const putGroupVocabularyRpc = rpc(
  'group',
  'put-vocabulary',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), id: Type.String(), terms: VocabularyTermsField }),
  GroupVocabularySchema,
);

/**
 * svc.group.keyterms: what a live session of the group sends its speech provider. `keyterms`
 * is the user's terms first, then the learned names, cut to KEYTERMS_MAX and
 * KEYTERMS_TOKEN_BUDGET; `user_terms` and `learned_terms` are the two lists whole.
 */
export const groupKeytermsRpc = rpc(
  'group',
  'keyterms',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), group_id: Type.String() }),
  Type.Object({
    keyterms: Type.Array(Type.String()),
    user_terms: Type.Array(Type.String()),
    learned_terms: Type.Array(Type.String()),
  }),
);

/** How many of a group's newest sessions the learned names are read from, and how much of each. */
export const LEARNED_NAMES_SESSIONS = 10;
export const LEARNED_NAMES_CHARS_PER_SESSION = 200_000;
/** The most learned names answered for a group. */
export const LEARNED_NAMES_MAX = 100;

/**
 * svc.transcript.group-names: proper names (characters, NPCs, places) in the owner's newest
 * LEARNED_NAMES_SESSIONS sessions of the group (their summaries and the first
 * LEARNED_NAMES_CHARS_PER_SESSION characters of each transcript) and in `campaign_summary`,
 * most frequent first. The transcript service owns the texts, so only the names cross the bus.
 */
export const groupNamesRpc = rpc(
  'transcript',
  'group-names',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    group_id: Type.String(),
    campaign_summary: Type.Optional(Type.String({ maxLength: 20_000 })),
  }),
  Type.Object({ names: Type.Array(Type.String(), { maxItems: LEARNED_NAMES_MAX }) }),
);

/** Most groups one svc.group.find answers (Discord shows at most 25 autocomplete choices). */
export const FIND_GROUPS_MAX = 25;

/**
 * svc.group.find: the owner's groups by name, for the voice bot's `/start group`: `name`
 * matches a whole name ignoring case, `prefix` the start of one (autocomplete); neither: the
 * owner's newest groups. At most `limit` (FIND_GROUPS_MAX), best matches first.
 */
export const findGroupsRpc = rpc(
  'group',
  'find',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    name: Type.Optional(Type.String({ maxLength: GROUP_NAME_MAX })),
    prefix: Type.Optional(Type.String({ maxLength: GROUP_NAME_MAX })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: FIND_GROUPS_MAX })),
  }),
  Type.Object({ items: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })) }),
);
