import type { CodexFinding } from '@chronicler/contracts';
import { isUuid, type Queryable } from '@chronicler/kit';
import { randomUUID } from 'node:crypto';
import { EDITED_SQL, type CodexStore } from './codex-store.ts';

export interface SessionFindings {
  transcript_id: string;
  version: string;
  name: string;
  session_timestamp: string;
  found: CodexFinding[];
}

const key = (s: string): string =>
  s
    .replace(/[\u2018\u2019\u02bc`]/g, "'")
    .trim()
    .toLowerCase();

/**
 * Applies what one session (at one version of its text) establishes, and forgets sessions that
 * left the campaign, in one transaction under the group's row lock (two readings of one campaign
 * apply one after the other). The session's earlier findings are replaced: its mentions go, the
 * new ones come, and entries no session names any more go unless the game master touched them.
 * A finding lands on the entry that has its name or one of its aliases (a merged entry's name
 * lands on the entry it became); its kind, name and description never replace what the game
 * master set. Answers null when the group is not the owner's, false for a version already read.
 */
export async function applyCodex(
  store: CodexStore,
  ownerId: string,
  groupId: string,
  session: SessionFindings | undefined,
  removed: string[],
): Promise<boolean | null> {
  if (!isUuid(groupId)) return null;
  const { t } = store;
  return store.db.transaction(async (tx) => {
    const owned = await tx.query(`select id from ${t.groups} where id = $1 and owner_id = $2 for update`, [
      groupId,
      ownerId,
    ]);
    if (owned.length === 0) return null;
    const gone = removed.filter(isUuid);
    for (const tid of gone) await forgetSession(store, tx, groupId, tid);
    let applied = false;
    if (session && isUuid(session.transcript_id)) {
      const [read] = await tx.query<{ version: string }>(
        `select version from ${t.sources} where group_id = $1 and transcript_id = $2`,
        [groupId, session.transcript_id],
      );
      if (read?.version !== session.version) {
        await forgetSession(store, tx, groupId, session.transcript_id);
        await addFindings(store, tx, groupId, session);
        await tx.query(
          `insert into ${t.sources} (group_id, transcript_id, version, session_name, session_timestamp)
           values ($1, $2, $3, $4, $5)
           on conflict (group_id, transcript_id) do update set version = excluded.version,
             session_name = excluded.session_name, session_timestamp = excluded.session_timestamp, read_at = now()`,
          [groupId, session.transcript_id, session.version, session.name, session.session_timestamp],
        );
        applied = true;
      }
    }
    if (applied || gone.length > 0) {
      // Entries nothing names any more, that the game master never touched, go (with their tombstones).
      await tx.query(
        `delete from ${t.entries} e
          where e.group_id = $1 and e.merged_into is null and not e.hidden and not ${EDITED_SQL}
            and not exists (select 1 from ${t.sessions} s where s.entry_id = e.id)`,
        [groupId],
      );
    }
    return applied;
  });
}

async function forgetSession(
  store: CodexStore,
  tx: Queryable,
  groupId: string,
  transcriptId: string,
): Promise<void> {
  const { t } = store;
  for (const table of [t.sessions, t.mentions]) {
    await tx.query(
      `delete from ${table} where transcript_id = $2
         and entry_id in (select id from ${t.entries} where group_id = $1)`,
      [groupId, transcriptId],
    );
  }
  await tx.query(`delete from ${t.sources} where group_id = $1 and transcript_id = $2`, [
    groupId,
    transcriptId,
  ]);
}

async function addFindings(
  store: CodexStore,
  tx: Queryable,
  groupId: string,
  session: SessionFindings,
): Promise<void> {
  const { t } = store;
  const rows = await tx.query<{
    id: string;
    name: string;
    aliases: string[];
    description: string;
    merged_into: string | null;
    gm_aliases: boolean;
    gm_description: boolean;
  }>(
    `select id, name, aliases, description, merged_into, gm_aliases, gm_description
       from ${t.entries} where group_id = $1`,
    [groupId],
  );
  const byId = new Map(rows.map((r) => [String(r.id), r]));
  const root = (id: string): string => {
    let at = id;
    for (let hops = 0; hops < 50; hops++) {
      const next = byId.get(at)?.merged_into;
      if (!next) return at;
      at = String(next);
    }
    return at;
  };
  const names = new Map<string, string>();
  // Live entries' names first, so a tombstone's old name never shadows a live entry's own.
  for (const r of [...rows].sort((a, b) => Number(a.merged_into !== null) - Number(b.merged_into !== null))) {
    for (const n of [r.name, ...r.aliases]) if (!names.has(key(n))) names.set(key(n), root(String(r.id)));
  }
  const fresh: { id: string; f: CodexFinding }[] = [];
  const counts = new Map<string, number>();
  const mentions: { id: string; line: number; seconds: number | null }[] = [];
  for (const f of session.found) {
    const found = [f.name, ...f.aliases].map((n) => names.get(key(n))).find(Boolean);
    let id = found;
    if (!id) {
      id = randomUUID();
      fresh.push({ id, f });
      for (const n of [f.name, ...f.aliases]) if (!names.has(key(n))) names.set(key(n), id);
    } else {
      const entry = byId.get(id);
      if (entry) {
        const known = new Set([entry.name, ...entry.aliases].map(key));
        // The finding's own name too: "Oskar Brandt" landing on the "Oskar" an earlier reading
        // found is one more name of that entry, whichever session was read first.
        const more = entry.gm_aliases ? [] : [f.name, ...f.aliases].filter((a) => !known.has(key(a)));
        const describe = !entry.gm_description && !entry.description && f.description;
        if (more.length > 0 || describe) {
          entry.aliases = [...entry.aliases, ...more].slice(0, 50);
          entry.description = entry.description || f.description;
          await tx.query(
            `update ${t.entries} set aliases = $2::text[], description = $3, updated_at = now() where id = $1`,
            [id, entry.aliases, entry.description],
          );
        }
      }
    }
    counts.set(id, (counts.get(id) ?? 0) + f.count);
    for (const m of f.mentions) mentions.push({ id, line: m.line, seconds: m.seconds });
  }
  if (fresh.length > 0) {
    await tx.query(
      `insert into ${t.entries} (id, group_id, kind, name, aliases, description)
       select u.id, $1, u.kind, u.name, coalesce(string_to_array(nullif(u.aliases, ''), E'\\u0001'), '{}'), u.description
         from unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[]) as u(id, kind, name, aliases, description)`,
      [
        groupId,
        fresh.map((x) => x.id),
        fresh.map((x) => x.f.kind),
        fresh.map((x) => x.f.name),
        fresh.map((x) => x.f.aliases.join('\u0001')),
        fresh.map((x) => x.f.description),
      ],
    );
  }
  const ids = [...counts.keys()];
  await tx.query(
    `insert into ${t.sessions} (entry_id, transcript_id, mentions)
     select u.id, $1, u.n from unnest($2::uuid[], $3::int[]) as u(id, n)
     on conflict (entry_id, transcript_id) do update set mentions = excluded.mentions`,
    [session.transcript_id, ids, ids.map((id) => counts.get(id)!)],
  );
  await tx.query(
    `insert into ${t.mentions} (entry_id, transcript_id, line, seconds)
     select u.id, $1, u.line, u.seconds from unnest($2::uuid[], $3::int[], $4::int[]) as u(id, line, seconds)
     on conflict do nothing`,
    [
      session.transcript_id,
      mentions.map((m) => m.id),
      mentions.map((m) => m.line),
      mentions.map((m) => m.seconds),
    ],
  );
}
