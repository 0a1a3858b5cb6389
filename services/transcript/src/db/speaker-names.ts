import type { SpeakerName } from '@chronicler/contracts';
import { isUuid, type DatabaseHandle } from '@chronicler/kit';

/** Display names of a session's speaker labels. The stored lines keep their labels. */
export class SpeakerNameStore {
  private readonly transcripts: string;
  private readonly names: string;
  constructor(
    private readonly db: DatabaseHandle,
    schema: string,
  ) {
    this.transcripts = `"${schema}".transcripts`;
    this.names = `"${schema}".speaker_names`;
  }

  /** The session's names by label (empty when none; the caller has checked the owner). */
  async map(id: string): Promise<Map<string, SpeakerName>> {
    if (!isUuid(id)) return new Map();
    const rows = await this.db.query<SpeakerName>(
      `select label, name, character from ${this.names} where transcript_id = $1 order by label`,
      [id],
    );
    return new Map(rows.map((r) => [r.label, { label: r.label, name: r.name, character: r.character }]));
  }

  /**
   * Replaces the session's names with `names` (blank names left out) in one transaction; a
   * summary the session already has no longer matches the names. False when not the owner's.
   */
  async replace(ownerId: string, id: string, names: SpeakerName[]): Promise<boolean> {
    if (!isUuid(id)) return false;
    return this.db.transaction(async (tx) => {
      const [t] = await tx.query<{ summary: string }>(
        `select summary from ${this.transcripts} where id = $1 and owner_id = $2 for update`,
        [id, ownerId],
      );
      if (!t) return false;
      const before = await tx.query<SpeakerName>(
        `select label, name, character from ${this.names} where transcript_id = $1`,
        [id],
      );
      await tx.query(`delete from ${this.names} where transcript_id = $1`, [id]);
      for (const n of names) {
        await tx.query(
          `insert into ${this.names} (transcript_id, label, name, character) values ($1, $2, $3, $4)`,
          [id, n.label, n.name, n.character],
        );
      }
      const key = (list: SpeakerName[]) =>
        JSON.stringify(list.map((n) => [n.label, n.name]).sort((a, b) => a[0]!.localeCompare(b[0]!)));
      if (key(before) !== key(names)) {
        await tx.query(
          `update ${this.transcripts} set summary_outdated = summary <> '' or summary_outdated where id = $1`,
          [id],
        );
      }
      return true;
    });
  }
}
