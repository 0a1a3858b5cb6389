import { isUuid, type DatabaseHandle } from '@chronicler/kit';
import type { CharacterLink } from '@chronicler/contracts';

/** The queries of a group's speaker-to-character map (table group_characters). */
export class CharacterStore {
  private readonly table: string;
  private readonly groups: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.table = `"${schema}".group_characters`;
    this.groups = `"${schema}".groups`;
  }

  /** The owner's group's links in the user's order, or null when the group is not theirs. */
  async get(ownerId: string, groupId: string): Promise<CharacterLink[] | null> {
    if (!isUuid(groupId)) return null;
    const rows = await this.db.query<{ speaker: string | null; character: string | null }>(
      `select c.speaker, c.character from ${this.groups} g
         left join ${this.table} c on c.group_id = g.id
        where g.id = $1 and g.owner_id = $2
        order by c.position`,
      [groupId, ownerId],
    );
    if (rows.length === 0) return null;
    return rows.flatMap((r) =>
      r.speaker && r.character ? [{ speaker: r.speaker, character: r.character }] : [],
    );
  }

  /** Replaces the map in one transaction; false when the group is not the owner's. */
  async set(ownerId: string, groupId: string, links: CharacterLink[]): Promise<boolean> {
    if (!isUuid(groupId)) return false;
    return this.db.transaction(async (tx) => {
      // Locks the group row so two saves of the same map apply one after the other.
      const owned = await tx.query(
        `select id from ${this.groups} where id = $1 and owner_id = $2 for update`,
        [groupId, ownerId],
      );
      if (owned.length === 0) return false;
      await tx.query(`delete from ${this.table} where group_id = $1`, [groupId]);
      for (const [position, l] of links.entries()) {
        await tx.query(
          `insert into ${this.table} (group_id, speaker, character, position) values ($1, $2, $3, $4)`,
          [groupId, l.speaker, l.character, position],
        );
      }
      return true;
    });
  }
}
