import type { contentVersionsRpc, RpcRequest, RpcResponse } from '@chronicler/contracts';
import { isUuid, type DatabaseHandle } from '@chronicler/kit';

/**
 * svc.transcript.content-versions: what the codex keeper needs to tell which sessions of a
 * campaign changed since it read them. The digest (md5: a change detector, not a secret) is
 * computed by PostgreSQL next to the text, so no text crosses the bus to be compared; it covers
 * the name, the text and the speakers' display names (which the keeper reads the text with).
 */
export const contentVersions =
  (db: DatabaseHandle, schema: string) =>
  async (req: RpcRequest<typeof contentVersionsRpc>): Promise<RpcResponse<typeof contentVersionsRpc>> => {
    const t = `"${schema}".transcripts`;
    let groupId = req.group_id ?? '';
    if (req.transcript_id !== undefined) {
      if (!isUuid(req.transcript_id)) return { group_id: '', sessions: [] };
      const [row] = await db.query<{ group_id: string | null }>(
        `select group_id from ${t} where id = $1 and owner_id = $2`,
        [req.transcript_id, req.owner_id],
      );
      groupId = row?.group_id ?? '';
    }
    if (!isUuid(groupId)) return { group_id: '', sessions: [] };
    const rows = await db.query<{ id: string; name: string; session_timestamp: unknown; version: string }>(
      `select t.id, t.name, t.session_timestamp,
              md5(t.name || E'\\n' || t.content || E'\\n' || coalesce(
                (select string_agg(n.label || '=' || n.name, ',' order by n.label)
                   from "${schema}".speaker_names n where n.transcript_id = t.id), '')) as version
         from ${t} t
        where t.owner_id = $1 and t.group_id = $2 and t.status = 'ended' and t.content <> ''
        order by t.session_timestamp, t.created_at, t.id`,
      [req.owner_id, groupId],
    );
    return {
      group_id: groupId,
      sessions: rows.map((r) => ({
        id: String(r.id),
        name: r.name,
        session_timestamp: new Date(r.session_timestamp as string).toISOString(),
        version: r.version,
      })),
    };
  };
