// Campaign summary check: POST /api/groups/{id}/check-summary (every dashboard open asks it)
// for a group of 5 sessions, for an owner with 1 group and for one with 1,000 groups and
// 5,000 sessions, side by side in one run. It reads the group and that group's sessions
// only, so the two should cost the same (ratio near 1). Next to it, in the same run, the
// reads the check used to make (every group of the owner, then every session of the owner,
// page by page over the bus) against the ones it makes now (one group, its sessions).
import type { EmbeddedSystem } from '@chronicler/all-in-one';
import {
  getGroupRpc,
  LIST_PAGE_MAX,
  listGroupsRpc,
  listTranscriptsPageRpc,
  type Rpc,
  type RpcRequest,
} from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import { localSignIn } from '../support/auth.ts';
import { startBenchSystem } from './embedded.ts';
import { percentile, printTable } from './report.ts';

const GROUPS = Number(process.env.BENCH_CHECK_GROUPS ?? 1000);
const SESSIONS_PER_GROUP = 5;
const REQUESTS = Number(process.env.BENCH_CHECK_REQUESTS ?? 100);

interface Owner {
  label: string;
  groups: number;
  token: string;
  ownerId: string;
  /** The group whose summary is checked. */
  groupId: string;
}

/** Groups and their sessions written straight into the two services' tables (fast seeding). */
async function seed(system: EmbeddedSystem, ownerId: string, groups: number): Promise<string> {
  const db = system.platform.db;
  const rows = await db.query<{ id: string }>(
    `insert into "group".groups (owner_id, name, created_at)
     select $1::uuid, 'Campaign ' || g, timestamptz '2020-01-01' + g * interval '1 minute'
       from generate_series(1, $2::int) g
     returning id`,
    [ownerId, groups],
  );
  await db.query(
    `insert into transcript.transcripts (owner_id, group_id, name, session_timestamp, content, preview, summary, source)
     select $1::uuid, gid, 'Session ' || s, timestamptz '2020-01-01' + s * interval '1 day',
            'Matt: The party rests at the inn.', 'Matt: The party rests at the inn.',
            'The party rests at the inn and plans the heist.', 'manual'
       from unnest($2::uuid[]) gid, generate_series(1, $3::int) s`,
    [ownerId, rows.map((r) => r.id), SESSIONS_PER_GROUP],
  );
  return rows[0]!.id;
}

async function check(url: string, owner: Owner): Promise<number> {
  const start = performance.now();
  const res = await fetch(`${url}/api/groups/${owner.groupId}/check-summary`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.token}` },
  });
  const body = (await res.json()) as Record<string, unknown>;
  const ms = performance.now() - start;
  if (res.status !== 200) throw new Error(`check-summary answered ${res.status}: ${JSON.stringify(body)}`);
  return ms;
}

/** Every page of a list RPC, as the check used to read the owner's groups and sessions. */
async function everyPage<R extends Rpc>(
  system: EmbeddedSystem,
  rpc: R,
  request: RpcRequest<R>,
): Promise<number> {
  let after: string | undefined;
  let items = 0;
  do {
    const page = (await call(system.platform.bus, rpc, {
      ...(request as Record<string, unknown>),
      limit: LIST_PAGE_MAX,
      after,
    } as RpcRequest<R>)) as {
      items: unknown[];
      next: string | null;
    };
    items += page.items.length;
    after = page.next ?? undefined;
  } while (after);
  return items;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export async function benchCheckSummary(): Promise<void> {
  const started = performance.now();
  const bench = await startBenchSystem({
    // Measures the reads of the check, not a model call: no summary is generated on the way.
    SUMMARY_AUTOMATIC: 'false',
  });
  const { system, backend } = bench;
  try {
    const owners: Owner[] = [];
    for (const groups of [1, GROUPS]) {
      const user = await localSignIn(system.url, `bench-check-${groups}`);
      const ownerId = user.body.user?.id ?? '';
      const groupId = await seed(system, ownerId, groups);
      owners.push({ label: `${groups} group(s)`, groups, token: user.cookie, ownerId, groupId });
    }

    // The check through the gateway, the two owners alternated so drift hits both alike.
    const times = new Map<Owner, number[]>(owners.map((o) => [o, []]));
    for (const o of owners) await check(system.url, o); // warm-up
    for (let i = 0; i < REQUESTS; i++) for (const o of owners) times.get(o)!.push(await check(system.url, o));
    const rows = owners.map((o) => {
      const t = times.get(o)!.sort((a, b) => a - b);
      return {
        owner: o.label,
        sessions: o.groups * SESSIONS_PER_GROUP,
        requests: t.length,
        p50Ms: percentile(t, 50),
        p95Ms: percentile(t, 95),
      };
    });
    printTable(`POST /api/groups/{id}/check-summary through the gateway (${backend})`, rows);
    console.log(
      `ratio ${GROUPS.toLocaleString('en-US')} groups / 1 group: p50 ${(rows[1]!.p50Ms / rows[0]!.p50Ms).toFixed(2)}x, ` +
        `p95 ${(rows[1]!.p95Ms / rows[0]!.p95Ms).toFixed(2)}x (O(the group's sessions): near 1)`,
    );

    // The reads behind it for the big owner, before and now, side by side.
    const big = owners[1]!;
    const before: number[] = [];
    const now: number[] = [];
    const rounds = Math.max(5, Math.floor(REQUESTS / 10));
    for (let i = 0; i < rounds; i++) {
      before.push(
        await timed(async () => {
          await everyPage(system, listGroupsRpc, { owner_id: big.ownerId });
          await everyPage(system, listTranscriptsPageRpc, { owner_id: big.ownerId });
        }),
      );
      now.push(
        await timed(async () => {
          await call(system.platform.bus, getGroupRpc, { owner_id: big.ownerId, id: big.groupId });
          await everyPage(system, listTranscriptsPageRpc, { owner_id: big.ownerId, group_id: big.groupId });
        }),
      );
    }
    before.sort((a, b) => a - b);
    now.sort((a, b) => a - b);
    printTable(`The check's reads over the bus, owner with ${GROUPS.toLocaleString('en-US')} groups`, [
      { reads: 'every group, then every session (before)', rounds, p50Ms: percentile(before, 50) },
      { reads: 'one group, then its sessions (now)', rounds, p50Ms: percentile(now, 50) },
    ]);
    console.log(`ratio before / now: p50 ${(percentile(before, 50) / percentile(now, 50)).toFixed(1)}x`);
    console.log(`check-summary took ${((performance.now() - started) / 1000).toFixed(0)} s`);
  } finally {
    await bench.stop();
  }
}
