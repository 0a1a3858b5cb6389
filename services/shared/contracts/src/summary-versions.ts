import { Type, type Static } from '@sinclair/typebox';
import { GroupSchema } from './groups.ts';
import { rpc } from './rpc.ts';

/**
 * Nothing written is lost: each campaign summary that was replaced (by an edit, a generation or
 * a restore) is kept as a version its owner can read and restore.
 */

/** Who wrote a campaign summary: the owner ('hand', also an edit of a generated one) or the AI. */
export const SummarySourceSchema = Type.Union([Type.Literal('hand'), Type.Literal('generated')]);
export type SummarySource = Static<typeof SummarySourceSchema>;

/** What replaced a version: an edit, a generation (asked for or the automatic check), a restore. */
export const SummaryReplacedBySchema = Type.Union([
  Type.Literal('edit'),
  Type.Literal('generation'),
  Type.Literal('restore'),
]);

export const SummaryVersionSchema = Type.Object({
  id: Type.String(),
  summary: Type.String(),
  source: SummarySourceSchema,
  /** When the text was generated; null for one written by hand. */
  generated_at: Type.Union([Type.String(), Type.Null()]),
  replaced_at: Type.String(),
  replaced_by: SummaryReplacedBySchema,
});
export type SummaryVersion = Static<typeof SummaryVersionSchema>;

/** Versions listed at most, newest first (each at most 10,000 characters). */
export const SUMMARY_VERSIONS_SHOWN = 50;

/**
 * The kept versions, newest first, and who wrote the summary shown now. `replaced_on_change`:
 * the automatic check replaces the text shown now when a session's summary changes (a text
 * once generated, and maybe edited since; one written by hand from the start is left alone).
 */
export const SummaryVersionListSchema = Type.Object({
  versions: Type.Array(SummaryVersionSchema),
  total: Type.Integer(),
  current_source: Type.Union([SummarySourceSchema, Type.Null()]),
  replaced_on_change: Type.Boolean(),
});
export type SummaryVersionList = Static<typeof SummaryVersionListSchema>;

/**
 * GET /api/groups/{id}/summary-versions: the list, and `replace_due`: the next check (the one
 * the dashboard runs when it opens) will replace the text shown now, so the dashboard can say so
 * before it runs.
 */
export const SummaryVersionsSchema = Type.Composite([
  SummaryVersionListSchema,
  Type.Object({ replace_due: Type.Boolean() }),
]);
export type SummaryVersions = Static<typeof SummaryVersionsSchema>;

/** svc.summary.check-due: whether the automatic check would replace the group's summary now (nothing is made). */
export const checkGroupDueRpc = rpc(
  'summary',
  'check-due',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), id: Type.String() }),
  Type.Object({ due: Type.Boolean() }),
);

const OwnerGroup = { owner_id: Type.String({ minLength: 1 }), id: Type.String() };

/** svc.group.summary-versions: one of the owner's groups' kept versions (not_found for another's). */
export const summaryVersionsRpc = rpc(
  'group',
  'summary-versions',
  Type.Object(OwnerGroup),
  SummaryVersionListSchema,
);

/**
 * svc.group.restore-summary (POST /api/groups/{id}/summary-versions/{versionId}/restore): the
 * version becomes the campaign summary again; the text it replaces is kept as a version too.
 */
export const restoreSummaryRpc = rpc(
  'group',
  'restore-summary',
  Type.Object({ ...OwnerGroup, version_id: Type.String() }),
  GroupSchema,
);

export const SummaryVersionParamsSchema = Type.Object({ id: Type.String(), versionId: Type.String() });
