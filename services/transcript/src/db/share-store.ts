import type { Share, ShareKind } from '@chronicler/contracts';
import { isUuid, type DatabaseHandle } from '@chronicler/kit';
import { createHash, randomBytes } from 'node:crypto';

const iso = (v: unknown): string => (v instanceof Date ? v.toISOString() : new Date(String(v)).toISOString());

/** 32 random bytes (256 bits), base64url: unguessable, and no id of anything. */
export const newShareToken = (): string => randomBytes(32).toString('base64url');
/** What is stored of a token: its SHA-256 (a 256-bit random token needs no slow hash). */
const tokenHash = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

const KINDS: readonly ShareKind[] = ['transcript', 'group', 'character-recap', 'previously'];

const toShare = (r: Record<string, unknown>): Share => ({
  id: String(r.id),
  kind: KINDS.find((k) => k === r.kind) ?? 'transcript',
  target_id: String(r.target_id),
  ...(r.kind === 'character-recap' ? { subject: typeof r.subject === 'string' ? r.subject : '' } : {}),
  created_at: iso(r.created_at),
  expires_at: r.expires_at === null || r.expires_at === undefined ? null : iso(r.expires_at),
});

/** The shares table (migration 0013_shares): every query but resolve filters by owner. */
export class ShareStore {
  private readonly table: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.table = `"${schema}".shares`;
  }

  async create(
    ownerId: string,
    kind: ShareKind,
    targetId: string,
    token: string,
    expiresAt: string | null,
    subject = '',
  ): Promise<Share> {
    const [r] = await this.db.query<Record<string, unknown>>(
      `insert into ${this.table} (owner_id, kind, target_id, token_hash, expires_at, subject)
       values ($1, $2, $3, $4, $5, $6) returning id, kind, target_id, subject, created_at, expires_at`,
      [ownerId, kind, targetId, tokenHash(token), expiresAt, subject],
    );
    return toShare(r!);
  }

  /** The target's links that still work, oldest first. */
  async list(ownerId: string, kind: ShareKind, targetId: string): Promise<Share[]> {
    if (!isUuid(targetId)) return [];
    const rows = await this.db.query<Record<string, unknown>>(
      `select id, kind, target_id, subject, created_at, expires_at from ${this.table}
        where owner_id = $1 and kind = $2 and target_id = $3 and (expires_at is null or expires_at > now())
        order by created_at, id`,
      [ownerId, kind, targetId],
    );
    return rows.map(toShare);
  }

  async revoke(ownerId: string, kind: ShareKind, targetId: string, shareId: string): Promise<boolean> {
    if (!isUuid(targetId) || !isUuid(shareId)) return false;
    const rows = await this.db.query(
      `delete from ${this.table} where id = $1 and owner_id = $2 and kind = $3 and target_id = $4 returning id`,
      [shareId, ownerId, kind, targetId],
    );
    return rows.length > 0;
  }

  /** The link a token opens, while it is neither revoked nor expired. */
  async resolve(token: string): Promise<{
    owner_id: string;
    kind: ShareKind;
    target_id: string;
    subject: string;
    expires_at: string | null;
  } | null> {
    const [r] = await this.db.query<Record<string, unknown>>(
      `select owner_id, kind, target_id, subject, expires_at from ${this.table}
        where token_hash = $1 and (expires_at is null or expires_at > now())`,
      [tokenHash(token)],
    );
    if (!r) return null;
    const share = toShare({ ...r, id: '', created_at: new Date() });
    return {
      owner_id: String(r.owner_id),
      kind: share.kind,
      target_id: share.target_id,
      subject: share.subject ?? '',
      expires_at: share.expires_at,
    };
  }

  /** A deleted group's links (to it, its characters' stories and its "previously on"). */
  async deleteForGroup(ownerId: string, groupId: string): Promise<void> {
    if (!isUuid(groupId)) return;
    await this.db.query(
      `delete from ${this.table} where owner_id = $1 and kind <> 'transcript' and target_id = $2`,
      [ownerId, groupId],
    );
  }
}
