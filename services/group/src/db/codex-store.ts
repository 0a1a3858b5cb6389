import {
  momentLink,
  type CodexEntry,
  type CodexEntryPatch,
  type CodexKind,
  type CodexSeen,
  type CodexVisibility,
} from '@chronicler/contracts';
import { isUuid, type DatabaseHandle, type Queryable } from '@chronicler/kit';

/** The tables of the codex (migration 0007_codex), named in the service's schema. */
export interface CodexTables {
  groups: string;
  entries: string;
  sessions: string;
  mentions: string;
  sources: string;
}

const codexTables = (schema: string): CodexTables => ({
  groups: `"${schema}".groups`,
  entries: `"${schema}".codex_entries`,
  sessions: `"${schema}".codex_entry_sessions`,
  mentions: `"${schema}".codex_mentions`,
  sources: `"${schema}".codex_sources`,
});

/** Whether the game master set any field of the entry (what an extraction never overwrites). */
export const EDITED_SQL = '(e.gm_name or e.gm_kind or e.gm_description or e.gm_aliases or e.gm_visibility)';

const iso = (v: unknown): string => new Date(v as string).toISOString();

interface EntryRow {
  id: string;
  kind: CodexKind;
  name: string;
  aliases: string[];
  description: string;
  visibility: CodexVisibility;
  hidden: boolean;
  edited: boolean;
}

export type PatchOutcome = CodexEntry | 'not_found' | { conflict: string };
export type MergeOutcome = CodexEntry | 'not_found' | 'other_group' | 'too_few';

/** Reads and the game master's changes of a campaign's codex; every query names the owner. */
export class CodexStore {
  readonly t: CodexTables;
  constructor(
    readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.t = codexTables(schema);
  }

  /** Whether the group is the owner's. */
  async owns(ownerId: string, groupId: string): Promise<boolean> {
    if (!isUuid(groupId)) return false;
    const rows = await this.db.query(`select 1 from ${this.t.groups} where id = $1 and owner_id = $2`, [
      groupId,
      ownerId,
    ]);
    return rows.length > 0;
  }

  /** The sessions read and the versions they were read at. */
  async sources(groupId: string): Promise<{ transcript_id: string; version: string }[]> {
    const rows = await this.db.query<{ transcript_id: string; version: string }>(
      `select transcript_id, version from ${this.t.sources} where group_id = $1 order by session_timestamp`,
      [groupId],
    );
    return rows.map((r) => ({ transcript_id: String(r.transcript_id), version: r.version }));
  }

  /**
   * The codex's entries (merged ones are part of the entry they became), by kind and name, each
   * with its mentions and where it was first and last named. `players`: only those marked for
   * players; hidden ones only when asked for.
   */
  async entries(
    groupId: string,
    opts: { players?: boolean; hidden?: boolean; ids?: string[] } = {},
    q: Queryable = this.db,
  ): Promise<CodexEntry[]> {
    const rows = await q.query<EntryRow>(
      `select e.id, e.kind, e.name, e.aliases, e.description, e.visibility, e.hidden, ${EDITED_SQL} as edited
         from ${this.t.entries} e
        where e.group_id = $1 and e.merged_into is null
          and ($2::boolean or not e.hidden) and (not $3::boolean or e.visibility = 'players')
          and ($4::uuid[] is null or e.id = any($4::uuid[]))
        order by e.kind, lower(e.name), e.id`,
      [groupId, opts.hidden ?? false, opts.players ?? false, opts.ids ?? null],
    );
    if (rows.length === 0) return [];
    const ids = rows.map((r) => String(r.id));
    const sessions = await q.query<{
      entry_id: string;
      transcript_id: string;
      mentions: number;
      session_name: string;
      session_timestamp: unknown;
    }>(
      `select s.entry_id, s.transcript_id, s.mentions, src.session_name, src.session_timestamp
         from ${this.t.sessions} s
         join ${this.t.sources} src on src.group_id = $1 and src.transcript_id = s.transcript_id
        where s.entry_id = any($2::uuid[])
        order by src.session_timestamp, s.transcript_id`,
      [groupId, ids],
    );
    const mentions = await q.query<{
      entry_id: string;
      transcript_id: string;
      line: number;
      seconds: number | null;
    }>(
      `select m.entry_id, m.transcript_id, m.line, m.seconds
         from ${this.t.mentions} m
         join ${this.t.sources} src on src.group_id = $1 and src.transcript_id = m.transcript_id
        where m.entry_id = any($2::uuid[])
        order by src.session_timestamp, m.transcript_id, m.line`,
      [groupId, ids],
    );
    const byEntry = <T extends { entry_id: string }>(list: T[]) => {
      const map = new Map<string, T[]>();
      for (const r of list) {
        const key = String(r.entry_id);
        map.set(key, [...(map.get(key) ?? []), r]);
      }
      return map;
    };
    const seen = byEntry(sessions);
    const said = byEntry(mentions);
    return rows.map((r) => {
      const id = String(r.id);
      const ss = seen.get(id) ?? [];
      const first = said.get(id) ?? [];
      const at = (s: (typeof ss)[number] | undefined): CodexSeen | null => {
        if (!s) return null;
        const tid = String(s.transcript_id);
        const m = first.find((x) => String(x.transcript_id) === tid);
        return {
          transcript_id: tid,
          session_name: s.session_name,
          session_timestamp: iso(s.session_timestamp),
          link: m ? momentLink(tid, m.line, m.seconds) : `/sessions/${tid}`,
        };
      };
      return {
        id,
        kind: r.kind,
        name: r.name,
        aliases: r.aliases.map(String),
        description: r.description,
        visibility: r.visibility,
        hidden: Boolean(r.hidden),
        edited: Boolean(r.edited),
        mention_count: ss.reduce((n, s) => n + Number(s.mentions), 0),
        first_seen: at(ss[0]),
        last_seen: at(ss.at(-1)),
        mentions: first.map((m) => ({
          transcript_id: String(m.transcript_id),
          line: Number(m.line),
          seconds: m.seconds === null ? null : Number(m.seconds),
          link: momentLink(
            String(m.transcript_id),
            Number(m.line),
            m.seconds === null ? null : Number(m.seconds),
          ),
        })),
      };
    });
  }

  /**
   * The game master's change of one entry (already checked): what they set is marked as theirs,
   * so no later extraction undoes it. A rename keeps the old name as an alias, so the sessions
   * that say it still find the entry; a name another entry has is a conflict (merge them instead).
   */
  async patch(
    ownerId: string,
    groupId: string,
    entryId: string,
    change: CodexEntryPatch,
  ): Promise<PatchOutcome> {
    if (!isUuid(groupId) || !isUuid(entryId)) return 'not_found';
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<{ name: string; aliases: string[] }>(
        `select e.name, e.aliases from ${this.t.entries} e join ${this.t.groups} g on g.id = e.group_id
          where e.id = $1 and g.id = $2 and g.owner_id = $3 and e.merged_into is null
          for update of e`,
        [entryId, groupId, ownerId],
      );
      if (!row) return 'not_found';
      let aliases = change.aliases ?? row.aliases.map(String);
      if (change.name !== undefined && change.name !== row.name) {
        const [taken] = await tx.query<{ name: string }>(
          `select name from ${this.t.entries}
            where group_id = $1 and merged_into is null and id <> $2 and lower(name) = lower($3)`,
          [groupId, entryId, change.name],
        );
        if (taken) return { conflict: taken.name };
        const key = (s: string) => s.toLowerCase();
        aliases = [...aliases.filter((a) => key(a) !== key(change.name!)), row.name].filter(
          (a, i, all) => all.findIndex((b) => key(b) === key(a)) === i,
        );
      }
      const aliasesChanged = change.aliases !== undefined || change.name !== undefined;
      await tx.query(
        `update ${this.t.entries} set
            name = coalesce($2, name), gm_name = gm_name or $2 is not null,
            kind = coalesce($3, kind), gm_kind = gm_kind or $3 is not null,
            description = coalesce($4, description), gm_description = gm_description or $4 is not null,
            visibility = coalesce($5, visibility), gm_visibility = gm_visibility or $5 is not null,
            hidden = coalesce($6, hidden),
            aliases = case when $7 then $8::text[] else aliases end, gm_aliases = gm_aliases or $9,
            updated_at = now()
          where id = $1`,
        [
          entryId,
          change.name ?? null,
          change.kind ?? null,
          change.description ?? null,
          change.visibility ?? null,
          change.hidden ?? null,
          aliasesChanged,
          aliases,
          change.aliases !== undefined,
        ],
      );
      const [entry] = await this.entries(groupId, { hidden: true, ids: [entryId] }, tx);
      return entry ?? 'not_found';
    });
  }

  /**
   * Entries of one campaign become one: `into` (else the first) keeps its fields and gains the
   * others' names as aliases, their mentions and counts; the others stay as tombstones pointing
   * at it, so that a later extraction that finds their names adds to it.
   */
  async merge(ownerId: string, groupId: string, ids: string[], into: string): Promise<MergeOutcome> {
    const all = [...new Set([into, ...ids])];
    if (!isUuid(groupId) || !all.every(isUuid)) return 'not_found';
    if (all.length < 2) return 'too_few';
    return this.db.transaction(async (tx) => {
      const rows = await tx.query<{
        id: string;
        group_id: string;
        name: string;
        aliases: string[];
        description: string;
      }>(
        `select e.id, e.group_id, e.name, e.aliases, e.description
           from ${this.t.entries} e join ${this.t.groups} g on g.id = e.group_id
          where e.id = any($1::uuid[]) and g.owner_id = $2 and e.merged_into is null
          for update of e`,
        [all, ownerId],
      );
      if (rows.length !== all.length) return 'not_found';
      if (rows.some((r) => String(r.group_id) !== groupId)) return 'other_group';
      const target = rows.find((r) => String(r.id) === into)!;
      const others = rows.filter((r) => String(r.id) !== into);
      const otherIds = others.map((r) => String(r.id));
      await tx.query(
        `insert into ${this.t.sessions} (entry_id, transcript_id, mentions)
           select $1, transcript_id, sum(mentions) from ${this.t.sessions} where entry_id = any($2::uuid[])
           group by transcript_id
         on conflict (entry_id, transcript_id) do update set mentions = ${this.t.sessions}.mentions + excluded.mentions`,
        [into, otherIds],
      );
      await tx.query(
        `insert into ${this.t.mentions} (entry_id, transcript_id, line, seconds)
           select $1, transcript_id, line, seconds from ${this.t.mentions} where entry_id = any($2::uuid[])
         on conflict do nothing`,
        [into, otherIds],
      );
      await tx.query(`delete from ${this.t.sessions} where entry_id = any($1::uuid[])`, [otherIds]);
      await tx.query(`delete from ${this.t.mentions} where entry_id = any($1::uuid[])`, [otherIds]);
      await tx.query(
        `update ${this.t.entries} set merged_into = $1, updated_at = now()
          where id = any($2::uuid[]) or merged_into = any($2::uuid[])`,
        [into, otherIds],
      );
      const key = (s: string) => s.toLowerCase();
      const names = [...target.aliases, ...others.flatMap((o) => [o.name, ...o.aliases])].filter(
        (n, i, list) => key(n) !== key(target.name) && list.findIndex((m) => key(m) === key(n)) === i,
      );
      const description = target.description || others.find((o) => o.description)?.description || '';
      await tx.query(
        `update ${this.t.entries} set aliases = $2::text[], gm_aliases = true, description = $3, updated_at = now()
          where id = $1`,
        [into, names.slice(0, 50), description],
      );
      const [entry] = await this.entries(groupId, { hidden: true, ids: [into] }, tx);
      return entry ?? 'not_found';
    });
  }
}
