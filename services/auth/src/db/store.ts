import { isUuid, type DatabaseHandle } from '@chronicler/kit';
import type { OAuthStateRow, ProviderProfile, SessionRow, UserRow } from './tables.ts';

/** Single-use WebSocket tickets older than this are refused (and swept). */
export const SOCKET_TICKET_MAX_AGE_MS = 60 * 1000;

/** Single-use OAuth states older than this are refused (and swept). */
const OAUTH_STATE_MAX_AGE_MS = 10 * 60 * 1000;

const SUBJECT_COLUMN = { discord: 'discord_id', google: 'google_sub', local: 'local_name' } as const;

/** Every query of the auth schema, so handlers never spell SQL. */
export class AuthStore {
  private readonly t: {
    users: string;
    sessions: string;
    states: string;
    settings: string;
    refresh: string;
    tickets: string;
  };

  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    const q = `"${schema}"`;
    this.t = {
      users: `${q}.users`,
      sessions: `${q}.sessions`,
      states: `${q}.oauth_states`,
      settings: `${q}.settings`,
      refresh: `${q}.refresh_tokens`,
      tickets: `${q}.socket_tickets`,
    };
  }

  /** Creates the user on first sign-in, refreshes the profile on later ones. */
  async upsertUser(p: ProviderProfile): Promise<UserRow> {
    const column = SUBJECT_COLUMN[p.provider];
    const rows = await this.db.query<UserRow>(
      `insert into ${this.t.users} (${column}, username, avatar, email, last_login_at)
       values ($1, $2, $3, $4, now())
       on conflict (${column}) do update set
         username = excluded.username,
         avatar = excluded.avatar,
         email = coalesce(excluded.email, ${this.t.users}.email),
         last_login_at = now()
       returning *`,
      [p.subject, p.username, p.avatar, p.email],
    );
    return rows[0]!;
  }

  /** The local account of a (lowercased) name. */
  async localUser(localName: string): Promise<UserRow | undefined> {
    return (
      await this.db.query<UserRow>(`select * from ${this.t.users} where local_name = $1`, [localName])
    )[0];
  }

  /** A new local account with its password hash; undefined when the name was taken meanwhile. */
  async createLocalUser(
    localName: string,
    username: string,
    passwordHash: string,
  ): Promise<UserRow | undefined> {
    const rows = await this.db.query<UserRow>(
      `insert into ${this.t.users} (local_name, username, password_hash) values ($1, $2, $3)
       on conflict (local_name) do nothing returning *`,
      [localName, username, passwordHash],
    );
    return rows[0];
  }

  /**
   * Gives a password-less local account (made before passwords existed) its first
   * password; false when it already has one, e.g. set by a racing request.
   */
  async claimPassword(userId: string, passwordHash: string): Promise<boolean> {
    const rows = await this.db.query(
      `update ${this.t.users} set password_hash = $2 where id = $1 and password_hash is null returning id`,
      [userId, passwordHash],
    );
    return rows.length === 1;
  }

  /** Replaces a hash made with older parameters, unless it changed meanwhile. */
  async replacePasswordHash(userId: string, oldHash: string, newHash: string): Promise<void> {
    await this.db.query(
      `update ${this.t.users} set password_hash = $3 where id = $1 and password_hash = $2`,
      [userId, oldHash, newHash],
    );
  }

  async userById(id: string): Promise<UserRow | undefined> {
    if (!isUuid(id)) return undefined;
    return (await this.db.query<UserRow>(`select * from ${this.t.users} where id = $1`, [id]))[0];
  }

  /** Whether any account exists (one index probe, not a count). */
  async anyUser(): Promise<boolean> {
    const rows = await this.db.query<{ any: boolean }>(
      `select exists (select 1 from ${this.t.users}) as any`,
    );
    return rows[0]?.any === true;
  }

  async countUsers(): Promise<number> {
    const rows = await this.db.query<{ n: number | string }>(`select count(*) as n from ${this.t.users}`);
    return Number(rows[0]?.n ?? 0);
  }

  /** Name and email of each known id; ids that are not uuids are skipped. */
  async usersByIds(ids: string[]): Promise<Pick<UserRow, 'id' | 'username' | 'email'>[]> {
    const uuids = [...new Set(ids.filter(isUuid))];
    if (uuids.length === 0) return [];
    return this.db.query(`select id, username, email from ${this.t.users} where id = any($1::uuid[])`, [
      uuids,
    ]);
  }

  /**
   * The users `who` can name, best match first: the user of that id, else the local account of
   * that name, else every user with that username (case-insensitive; at most two, enough to
   * tell that a name is ambiguous).
   */
  async findUsers(who: string): Promise<UserRow[]> {
    const byId = isUuid(who) ? await this.userById(who) : undefined;
    if (byId) return [byId];
    const local = await this.localUser(who.trim().toLowerCase());
    if (local) return [local];
    return this.db.query<UserRow>(
      `select * from ${this.t.users} where lower(username) = lower($1) order by created_at limit 2`,
      [who.trim()],
    );
  }

  /** Sets the stored admin flag; the row after the change. */
  async setAdmin(userId: string, admin: boolean): Promise<UserRow | undefined> {
    return (
      await this.db.query<UserRow>(`update ${this.t.users} set is_admin = $2 where id = $1 returning *`, [
        userId,
        admin,
      ])
    )[0];
  }

  async createSession(userId: string, provider: string, ttlSeconds: number): Promise<SessionRow> {
    // Expired sessions of this user are dead weight; dropping them here keeps the table bounded.
    await this.db.query(`delete from ${this.t.sessions} where user_id = $1 and expires_at < now()`, [userId]);
    const rows = await this.db.query<SessionRow>(
      `insert into ${this.t.sessions} (user_id, provider, expires_at)
       values ($1, $2, now() + make_interval(secs => $3)) returning *`,
      [userId, provider, ttlSeconds],
    );
    return rows[0]!;
  }

  /** The session with its user, when it exists, is not revoked and has not expired. */
  async liveSession(sessionId: string): Promise<{ session: SessionRow; user: UserRow } | undefined> {
    if (!isUuid(sessionId)) return undefined;
    const rows = await this.db.query<SessionRow & { u: UserRow }>(
      `select s.*, to_jsonb(u.*) as u from ${this.t.sessions} s join ${this.t.users} u on u.id = s.user_id
       where s.id = $1 and s.revoked_at is null and s.expires_at > now()`,
      [sessionId],
    );
    const row = rows[0];
    if (!row) return undefined;
    const { u, ...session } = row;
    return {
      session,
      user: { ...u, created_at: new Date(u.created_at), last_login_at: new Date(u.last_login_at) },
    };
  }

  /** Marks the session revoked; answers its user when this call revoked it. */
  async revokeSession(sessionId: string): Promise<{ user_id: string } | undefined> {
    if (!isUuid(sessionId)) return undefined;
    const rows = await this.db.query<{ user_id: string }>(
      `update ${this.t.sessions} set revoked_at = now() where id = $1 and revoked_at is null returning user_id`,
      [sessionId],
    );
    return rows[0];
  }

  /** Stores a new refresh credential (its hash) of a session. */
  async addRefreshToken(sessionId: string, tokenHash: string): Promise<void> {
    await this.db.query(`insert into ${this.t.refresh} (token_hash, session_id) values ($1, $2)`, [
      tokenHash,
      sessionId,
    ]);
  }

  /**
   * Marks a refresh credential used, in one statement so two uses racing cannot both get it:
   * `fresh` when this call used it, `reused` when it had been used before, `unknown` otherwise.
   */
  async useRefreshToken(
    tokenHash: string,
  ): Promise<{ status: 'fresh' | 'reused'; sessionId: string } | { status: 'unknown' }> {
    const used = await this.db.query<{ session_id: string }>(
      `update ${this.t.refresh} set used_at = now() where token_hash = $1 and used_at is null
       returning session_id`,
      [tokenHash],
    );
    if (used[0]) return { status: 'fresh', sessionId: used[0].session_id };
    const known = await this.db.query<{ session_id: string }>(
      `select session_id from ${this.t.refresh} where token_hash = $1`,
      [tokenHash],
    );
    return known[0] ? { status: 'reused', sessionId: known[0].session_id } : { status: 'unknown' };
  }

  async addSocketTicket(sessionId: string, ticketHash: string): Promise<void> {
    await this.db.query(
      `delete from ${this.t.tickets} where created_at < now() - make_interval(secs => $1)`,
      [SOCKET_TICKET_MAX_AGE_MS / 1000],
    );
    await this.db.query(`insert into ${this.t.tickets} (ticket_hash, session_id) values ($1, $2)`, [
      ticketHash,
      sessionId,
    ]);
  }

  /** Takes a ticket out (so it opens one socket at most); its session when it was fresh. */
  async takeSocketTicket(ticketHash: string): Promise<string | undefined> {
    const rows = await this.db.query<{ session_id: string }>(
      `delete from ${this.t.tickets} where ticket_hash = $1
       returning session_id, created_at > now() - make_interval(secs => $2) as fresh`,
      [ticketHash, SOCKET_TICKET_MAX_AGE_MS / 1000],
    );
    const row = rows[0] as { session_id: string; fresh?: boolean } | undefined;
    return row?.fresh ? row.session_id : undefined;
  }

  async saveOAuthState(row: Omit<OAuthStateRow, 'created_at'>): Promise<void> {
    await this.db.query(`delete from ${this.t.states} where created_at < now() - make_interval(secs => $1)`, [
      OAUTH_STATE_MAX_AGE_MS / 1000,
    ]);
    await this.db.query(
      `insert into ${this.t.states} (state, code_verifier, provider, redirect_uri) values ($1, $2, $3, $4)`,
      [row.state, row.code_verifier, row.provider, row.redirect_uri],
    );
  }

  /**
   * Takes the state out in one statement, so two callbacks racing with the same state
   * cannot both get it; answers it only when it belongs to `provider` and is fresh.
   */
  async consumeOAuthState(state: string, provider: string): Promise<OAuthStateRow | undefined> {
    const rows = await this.db.query<OAuthStateRow>(
      `delete from ${this.t.states} where state = $1 returning *`,
      [state],
    );
    const row = rows[0];
    if (!row || row.provider !== provider) return undefined;
    if (Date.now() - new Date(row.created_at).getTime() > OAUTH_STATE_MAX_AGE_MS) return undefined;
    return row;
  }

  /** The stored value of `key`, storing `candidate` first when there is none (race-safe). */
  async settingOrInit(key: string, candidate: string): Promise<string> {
    await this.db.query(
      `insert into ${this.t.settings} (key, value) values ($1, $2) on conflict (key) do nothing`,
      [key, candidate],
    );
    const rows = await this.db.query<{ value: string }>(
      `select value from ${this.t.settings} where key = $1`,
      [key],
    );
    return rows[0]!.value;
  }
}
