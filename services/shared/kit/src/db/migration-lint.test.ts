import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { lintMigration } from './migration-lint.ts';

const services = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

describe('migration lint (expand and contract)', () => {
  it('finds nothing in the committed migrations of every service', () => {
    const files = readdirSync(services).flatMap((name) => {
      const dir = path.join(services, name, 'migrations');
      try {
        return readdirSync(dir)
          .filter((f) => f.endsWith('.sql'))
          .map((f) => path.join(dir, f));
      } catch {
        return [];
      }
    });
    expect(files.length).toBeGreaterThan(20);
    const problems = files.flatMap((f) => lintMigration(path.relative(services, f), readFileSync(f, 'utf8')));
    expect(problems).toEqual([]);
  });

  it.each([
    ['drop table old_lines', 'drops a table'],
    ['alter table transcripts drop column summary', 'drops a column'],
    ['ALTER TABLE transcripts DROP summary', 'drops a column'],
    ['alter table transcripts rename column name to title', 'renames'],
    ['alter table transcripts rename to sessions', 'renames'],
    ['alter table transcripts alter column duration type bigint', 'changes a column type'],
    ['alter table transcripts alter column name set not null', 'NOT NULL'],
    ['alter table transcripts add column title text not null', 'without a default'],
    ['truncate transcripts', 'empties'],
  ])('refuses a made-up destructive migration: %s', (sql, reason) => {
    const problems = lintMigration('9999_bad.sql', `-- made up\n${sql};\n`);
    expect(problems).toHaveLength(1);
    expect(problems[0]!.reason).toContain(reason);
  });

  it('lets additions through, and a contract step that says what it finishes', () => {
    const additive = `
      create table notes (id uuid primary key, body text not null);
      alter table transcripts add column title text not null default '';
      alter table transcripts add column note text;
      alter table shares drop constraint shares_kind_check;
      drop index transcripts_owner;
      create index transcripts_title on transcripts (title) where title is not null;`;
    expect(lintMigration('0100_add.sql', additive)).toEqual([]);
    const contract =
      '-- contract: 0100_add.sql moved readers to title; the release before this one no longer reads name\nalter table transcripts drop column name;';
    expect(lintMigration('0101_drop_name.sql', contract)).toEqual([]);
  });
});
