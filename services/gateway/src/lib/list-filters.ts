import { Type, type Static } from '@sinclair/typebox';
import { ServiceError } from '@chronicler/kit';

/**
 * The filters of GET /transcripts, beside its paging: `q` (sessions whose name or preview
 * holds it, any case), `group_id` (one group's sessions) and `ungrouped=true` (sessions in no
 * group). Like `limit`, they are read as text and checked here so that a bad value is a 400
 * in plain words; the transcript service checks the search text's length again.
 */
export const TranscriptListQuery = Type.Object({
  q: Type.Optional(Type.String({ maxLength: 1000 })),
  group_id: Type.Optional(Type.String({ maxLength: 100 })),
  ungrouped: Type.Optional(Type.String({ maxLength: 10 })),
});
type TranscriptListQuery = Static<typeof TranscriptListQuery>;

export function listFilters(query: TranscriptListQuery): {
  search?: string;
  group_id?: string;
  ungrouped: boolean;
} {
  if (query.ungrouped !== undefined && query.ungrouped !== 'true' && query.ungrouped !== 'false') {
    throw new ServiceError('bad_request', 'ungrouped must be true or false');
  }
  const ungrouped = query.ungrouped === 'true';
  const groupId = query.group_id?.trim() || undefined;
  if (ungrouped && groupId !== undefined) {
    throw new ServiceError('bad_request', 'group_id and ungrouped cannot be combined');
  }
  const search = query.q?.trim() || undefined;
  return {
    ...(search !== undefined ? { search } : {}),
    ...(groupId !== undefined ? { group_id: groupId } : {}),
    ungrouped,
  };
}
