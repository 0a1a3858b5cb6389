/**
 * Expand and contract: during a rolling upgrade the previous release's pods still serve on the
 * schema this release's migration Job has just changed, so a migration may only add (tables,
 * nullable columns or columns with a default, indexes, constraints the data already meets).
 * What the previous release may still read or write is removed or changed in two releases:
 *
 * 1. expand: add the new column or table; the code writes both and reads the new one;
 * 2. contract, one release later (once no pod of the old release runs): drop or rename the old
 *    one in a migration whose first lines say so with `-- contract: <what the previous release
 *    stopped using, and in which migration the replacement came>`.
 *
 * `lintMigration` names each statement that would break the previous release, unless the file
 * carries that marker.
 */
interface MigrationProblem {
  file: string;
  statement: string;
  reason: string;
}

const RULES: { pattern: RegExp; reason: string }[] = [
  { pattern: /\bdrop\s+table\b/, reason: 'drops a table the previous release may read' },
  { pattern: /\bdrop\s+schema\b/, reason: 'drops a schema the previous release reads' },
  {
    pattern: /\balter\s+table\b[^;]*\bdrop\s+(column\b|(?!constraint\b|index\b|default\b|not\b)\w)/,
    reason: 'drops a column the previous release may read',
  },
  {
    pattern: /\brename\s+(column\s+|constraint\s+)?\w+\s+to\b|\brename\s+to\b/,
    reason: 'renames what the previous release names',
  },
  {
    pattern: /\balter\s+column\s+\w+\s+(set\s+data\s+)?type\b/,
    reason: 'changes a column type the previous release reads and writes',
  },
  {
    pattern: /\balter\s+column\s+\w+\s+set\s+not\s+null\b/,
    reason: 'makes a column NOT NULL that the previous release may leave empty',
  },
  { pattern: /\btruncate\b/, reason: 'empties a table the previous release reads' },
];

/** A NOT NULL column added without a default: the previous release's inserts, which do not name it, fail. */
const ADD_COLUMN = /\badd\s+column\s+(if\s+not\s+exists\s+)?\w+[^,;]*/g;

const CONTRACT_MARK = /^\s*--\s*contract:\s*\S/m;

/** Comments out, strings kept as they are (no rule looks inside them), lower case, one statement each. */
function statements(sql: string): string[] {
  return sql
    .replace(/\/\*[\s\S]*?\*\//g, ' ')
    .replace(/--[^\n]*/g, ' ')
    .toLowerCase()
    .split(';')
    .map((s) => s.replace(/\s+/g, ' ').trim())
    .filter(Boolean);
}

export function lintMigration(file: string, sql: string): MigrationProblem[] {
  if (CONTRACT_MARK.test(sql)) return [];
  const problems: MigrationProblem[] = [];
  for (const statement of statements(sql)) {
    for (const rule of RULES) {
      if (rule.pattern.test(statement)) problems.push({ file, statement, reason: rule.reason });
    }
    for (const [column] of statement.matchAll(ADD_COLUMN)) {
      if (/\bnot\s+null\b/.test(column) && !/\bdefault\b/.test(column) && !/\bgenerated\b/.test(column)) {
        problems.push({
          file,
          statement,
          reason: 'adds a NOT NULL column without a default: the previous release’s inserts fail',
        });
      }
    }
  }
  return problems;
}
