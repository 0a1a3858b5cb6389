import type pg from 'pg';

/** Distinct statement texts given a name; any further one runs unnamed (dynamic SQL cannot grow it). */
const MAX_NAMED = 500;

type Rows = Record<string, unknown>[];
/** A pool or a checked-out client: both run a named QueryConfig. */
type Runner = { query(config: pg.QueryConfig): Promise<pg.QueryResult<Record<string, unknown>>> };

/**
 * PostgreSQL's refusal of a prepared statement whose result columns changed under it: a
 * migration altered a table that the statement reads (`select *` after a new column). The
 * statement must be prepared again; an unnamed one never meets this.
 */
function isStalePlan(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return e?.code === '0A000' && typeof e.message === 'string' && e.message.includes('cached plan');
}

/**
 * Names for the parameterised statements of one pool, so that each connection parses and plans
 * a statement once and then only binds and executes it (node-postgres prepares a named
 * statement the first time a connection runs it and remembers that it did).
 *
 * Measured on the session list and one session (cluster, 2 cores, kit README): PostgreSQL's
 * CPU per request fell from 143–228 µs to 53–65 µs, and the cluster served 20–50% more
 * requests a second. Statements without parameters stay on the simple protocol (scripts,
 * `BEGIN`); statements after the first MAX_NAMED distinct texts run unnamed.
 *
 * A statement prepared before a migration changed its result columns is refused by PostgreSQL
 * ("cached plan must not change result type"): its text gets a new name, so every connection
 * prepares it again, and a query outside a transaction is retried once under that name (inside
 * one the transaction is already aborted: the error goes to the caller, whose retry succeeds).
 */
export class StatementNames {
  readonly #names = new Map<string, string>();
  #next = 0;

  constructor(private readonly max = MAX_NAMED) {}

  #name(sql: string): string | undefined {
    const known = this.#names.get(sql);
    if (known !== undefined || this.#names.size >= this.max) return known;
    return this.#renew(sql);
  }

  #renew(sql: string): string {
    const name = `chr_${(this.#next++).toString(36)}`;
    this.#names.set(sql, name);
    return name;
  }

  /** Runs `sql` on `runner`, named when it has parameters; `retry`: whether a stale plan may be run again. */
  async run(runner: Runner, sql: string, params: unknown[] | undefined, retry: boolean): Promise<Rows> {
    const name = params && params.length > 0 ? this.#name(sql) : undefined;
    if (name === undefined) return (await runner.query({ text: sql, values: params })).rows;
    try {
      return (await runner.query({ name, text: sql, values: params })).rows;
    } catch (err) {
      if (!isStalePlan(err)) throw err;
      const renewed = this.#renew(sql);
      if (!retry) throw err;
      return (await runner.query({ name: renewed, text: sql, values: params })).rows;
    }
  }
}
