import { Type, type Static } from '@sinclair/typebox';
import { CodexEntrySchema } from './codex.ts';
import { OkSchema } from './owner-scoped.ts';
import { rpc } from './rpc.ts';

/**
 * What a read-only link shows: one session, a campaign (group) and its sessions, one character's
 * story in a campaign, or a campaign's "previously on" (the last two showing only the codex
 * entries marked for players).
 */
export const ShareKindSchema = Type.Union([
  Type.Literal('transcript'),
  Type.Literal('group'),
  Type.Literal('character-recap'),
  Type.Literal('previously'),
]);
export type ShareKind = Static<typeof ShareKindSchema>;

/** Most live links one session or campaign may have. */
export const SHARES_PER_TARGET_MAX = 50;

/** A read-only link as its owner lists it: never its token, which only its creation answers. */
export const ShareSchema = Type.Object({
  id: Type.String(),
  kind: ShareKindSchema,
  target_id: Type.String(),
  /** The character a character-recap link tells of ('' for other kinds). */
  subject: Type.Optional(Type.String()),
  created_at: Type.String(),
  /** When the link stops working; null: until revoked. */
  expires_at: Type.Union([Type.String(), Type.Null()]),
});
export type Share = Static<typeof ShareSchema>;

/** POST .../shares's answer: the link, with its token and web path shown this once. */
export const CreatedShareSchema = Type.Composite([
  ShareSchema,
  Type.Object({ token: Type.String(), path: Type.String() }),
]);
export type CreatedShare = Static<typeof CreatedShareSchema>;

/** POST /api/transcripts/{id}/shares and /api/groups/{id}/shares: an optional expiry in the future. */
export const CreateShareBodySchema = Type.Object({
  expires_at: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()])),
  /** A character's story's link: the character (of the campaign's Who Is Who map). */
  character: Type.Optional(Type.String({ maxLength: 1_000 })),
});
export type CreateShareBody = Static<typeof CreateShareBodySchema>;

export const ShareParamsSchema = Type.Object({ id: Type.String(), shareId: Type.String() });
export const SharedTokenParamsSchema = Type.Object({ token: Type.String({ maxLength: 200 }) });
export const SharedSessionParamsSchema = Type.Object({
  token: Type.String({ maxLength: 200 }),
  sessionId: Type.String(),
});

/** A session as a link shows it: its transcript and summary, never its notes. */
export const SharedTranscriptSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  session_timestamp: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('ended')]),
  summary: Type.String(),
  content: Type.String(),
});
export type SharedTranscript = Static<typeof SharedTranscriptSchema>;

/** A session of a shared campaign as its list shows it (its text is read one session at a time). */
export const SharedSessionItemSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  session_timestamp: Type.String(),
  summary: Type.String(),
});
export type SharedSessionItem = Static<typeof SharedSessionItemSchema>;

/** GET /api/shared/{token}: what the link shows, read-only, signed in or not. */
export const SharedViewSchema = Type.Union([
  Type.Object({
    kind: Type.Literal('transcript'),
    expires_at: Type.Union([Type.String(), Type.Null()]),
    transcript: SharedTranscriptSchema,
  }),
  Type.Object({
    kind: Type.Literal('group'),
    expires_at: Type.Union([Type.String(), Type.Null()]),
    group: Type.Object({ name: Type.String(), summary: Type.String() }),
    sessions: Type.Array(SharedSessionItemSchema),
  }),
  Type.Object({
    kind: Type.Literal('character-recap'),
    expires_at: Type.Union([Type.String(), Type.Null()]),
    group: Type.Object({ name: Type.String() }),
    character: Type.String(),
    /** Markdown; its moment links open the shared sessions (/shared/{token}/sessions/{id}). */
    text: Type.String(),
    entries: Type.Array(CodexEntrySchema),
  }),
  Type.Object({
    kind: Type.Literal('previously'),
    expires_at: Type.Union([Type.String(), Type.Null()]),
    group: Type.Object({ name: Type.String() }),
    text: Type.String(),
    entries: Type.Array(CodexEntrySchema),
  }),
]);
export type SharedView = Static<typeof SharedViewSchema>;

const ShareTargetRequest = {
  owner_id: Type.String({ minLength: 1 }),
  kind: ShareKindSchema,
  target_id: Type.String(),
};

/** svc.transcript.share-create: a new link to one of the owner's sessions or (checked by the caller) groups. */
export const createShareRpc = rpc(
  'transcript',
  'share-create',
  Type.Object({
    ...ShareTargetRequest,
    expires_at: Type.Optional(Type.String()),
    subject: Type.Optional(Type.String({ maxLength: 200 })),
  }),
  CreatedShareSchema,
);

/** svc.transcript.share-list: the owner's live links to one session or group, oldest first. */
export const listSharesRpc = rpc(
  'transcript',
  'share-list',
  Type.Object(ShareTargetRequest),
  Type.Array(ShareSchema),
);

/** svc.transcript.share-revoke: deletes one link; another owner's or target's link is not_found. */
export const revokeShareRpc = rpc(
  'transcript',
  'share-revoke',
  Type.Object({ ...ShareTargetRequest, share_id: Type.String() }),
  OkSchema,
);

/** svc.transcript.share-resolve: who shared what under a token; not_found when unknown, revoked or expired. */
export const resolveShareRpc = rpc(
  'transcript',
  'share-resolve',
  Type.Object({ token: Type.String({ maxLength: 200 }) }),
  Type.Object({
    owner_id: Type.String(),
    kind: ShareKindSchema,
    target_id: Type.String(),
    subject: Type.String(),
    expires_at: Type.Union([Type.String(), Type.Null()]),
  }),
);
