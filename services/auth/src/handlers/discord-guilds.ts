import type { ManagedGuild, managedGuildsRpc, RpcRequest } from '@chronicler/contracts';
import type { DatabaseHandle, Logger } from '@chronicler/kit';
import { providerJson } from '../oauth.ts';

const ADMINISTRATOR = 1n << 3n;
const MANAGE_GUILD = 1n << 5n;

interface GuildRow {
  guild_id: string;
  name: string;
  icon: string | null;
  owner: boolean;
  permissions: string;
}

function manages(r: GuildRow): boolean {
  let perms = 0n;
  try {
    perms = BigInt(r.permissions);
  } catch {
    // An unreadable bit set grants nothing.
  }
  return r.owner || (perms & (ADMINISTRATOR | MANAGE_GUILD)) !== 0n;
}

/**
 * At a Discord sign-in: the user's servers from `GET /users/@me/guilds` on their OAuth token,
 * replacing what the last sign-in stored. Failing to read them (a token without the `guilds`
 * scope, Discord down) does not fail the sign-in: the previous list stays.
 */
export async function storeDiscordGuilds(
  db: DatabaseHandle,
  schema: string,
  opts: { api: string; accessToken: string; userId: string; timeoutMs: number; logger: Logger },
): Promise<void> {
  let rows: GuildRow[];
  try {
    const answer = await providerJson(`${opts.api}/users/@me/guilds`, {
      headers: { authorization: `Bearer ${opts.accessToken}`, accept: 'application/json' },
      timeoutMs: opts.timeoutMs,
      what: 'reading the Discord servers',
      array: true,
    });
    const list = Array.isArray(answer.items) ? (answer.items as Record<string, unknown>[]) : [];
    rows = list
      .filter((g) => typeof g.id === 'string' && /^\d{1,25}$/.test(g.id) && typeof g.name === 'string')
      .map((g) => ({
        guild_id: String(g.id),
        name: String(g.name).slice(0, 100),
        icon: typeof g.icon === 'string' ? g.icon : null,
        owner: g.owner === true,
        permissions: typeof g.permissions === 'string' ? g.permissions : '0',
      }));
  } catch (err) {
    opts.logger.warn({ err }, 'Discord servers not read at sign-in; the previous list stays');
    return;
  }
  const table = `"${schema}".discord_guilds`;
  await db.transaction(async (tx) => {
    await tx.query(`delete from ${table} where user_id = $1`, [opts.userId]);
    for (const r of rows) {
      await tx.query(
        `insert into ${table} (user_id, guild_id, name, icon, owner, permissions) values ($1, $2, $3, $4, $5, $6)`,
        [opts.userId, r.guild_id, r.name, r.icon, r.owner, r.permissions],
      );
    }
  });
}

/** svc.auth.managed-guilds: the servers the user may configure, by name. */
export const managedGuilds =
  (db: DatabaseHandle, schema: string) =>
  async (req: RpcRequest<typeof managedGuildsRpc>): Promise<{ items: ManagedGuild[] }> => {
    const rows = await db.query<GuildRow>(
      `select guild_id, name, icon, owner, permissions from "${schema}".discord_guilds
        where user_id::text = $1 order by lower(name), guild_id`,
      [req.user_id],
    );
    return { items: rows.filter(manages).map((r) => ({ id: r.guild_id, name: r.name, icon: r.icon })) };
  };
