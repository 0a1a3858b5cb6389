import { Type, type Static } from '@sinclair/typebox';
import { OAuthCallbackRequestSchema } from './auth.ts';
import { GroupNameField, VocabularyTermsField } from './groups.ts';
import { SessionNameField } from './transcripts.ts';

/**
 * Request shapes of the gateway's REST routes (path parameters, query strings and bodies)
 * that are not also a bus request. The gateway validates with them and infers its handlers'
 * types from them, and its OpenAPI document describes them, so all three agree.
 */

/** `/:id` of a transcript or a group. */
export const IdParamsSchema = Type.Object({ id: Type.String() });
export type IdParams = Static<typeof IdParamsSchema>;

/**
 * POST /api/transcripts/manual. Form fields stay optional strings: the transcript service
 * answers the product's messages for missing or malformed ones.
 */
export const CreateManualTranscriptBodySchema = Type.Object({
  name: SessionNameField,
  session_date: Type.Optional(Type.String()),
  summary: Type.Optional(Type.String()),
  transcript: Type.Optional(Type.String()),
  group_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type CreateManualTranscriptBody = Static<typeof CreateManualTranscriptBodySchema>;

/** PUT /api/transcripts/:id: the session form's fields, checked by the transcript service. */
export const UpdateTranscriptBodySchema = Type.Object({
  name: SessionNameField,
  summary: Type.Optional(Type.String()),
  session_date: Type.Optional(Type.String()),
  transcript: Type.Optional(Type.String()),
});
export type UpdateTranscriptBody = Static<typeof UpdateTranscriptBodySchema>;

/** PUT /api/transcripts/:id/rename. */
export const RenameTranscriptBodySchema = Type.Object({ name: SessionNameField });
export type RenameTranscriptBody = Static<typeof RenameTranscriptBodySchema>;

/** PUT /api/transcripts/:id/assign-group. */
export const AssignGroupBodySchema = Type.Object({ group_id: Type.String() });
export type AssignGroupBody = Static<typeof AssignGroupBodySchema>;

/** PUT /api/transcripts/:id/summary: an absent summary clears it. */
export const TranscriptSummaryBodySchema = Type.Object({ summary: Type.Optional(Type.String()) });
export type TranscriptSummaryBody = Static<typeof TranscriptSummaryBodySchema>;

/** POST /api/groups. */
export const CreateGroupBodySchema = Type.Object({ name: GroupNameField });
export type CreateGroupBody = Static<typeof CreateGroupBodySchema>;

/** PUT /api/groups/:id. */
export const UpdateGroupBodySchema = Type.Object({
  name: GroupNameField,
  summary: Type.Optional(Type.String()),
});
export type UpdateGroupBody = Static<typeof UpdateGroupBodySchema>;

/**
 * GET /api/users/stats?start=&end=: UTC days; the admin-stats service checks them so that
 * one place words every message, and the gateway fills in what is missing.
 */
export const UserStatsQuerySchema = Type.Object({
  start: Type.Optional(Type.String()),
  end: Type.Optional(Type.String()),
});
export type UserStatsQuery = Static<typeof UserStatsQuerySchema>;

/**
 * GET /api/auth/{discord,google}/callback: what the provider puts in the redirect. Every
 * parameter may be missing (a denied consent sends only `error`); the auth service decides.
 */
export const OAuthCallbackQuerySchema = Type.Partial(OAuthCallbackRequestSchema);
export type OAuthCallbackQuery = Static<typeof OAuthCallbackQuerySchema>;

/** PUT /api/groups/:id/vocabulary: the user's own list, replacing the stored one. */
export const PutGroupVocabularyBodySchema = Type.Object({ terms: VocabularyTermsField });
export type PutGroupVocabularyBody = Static<typeof PutGroupVocabularyBodySchema>;
