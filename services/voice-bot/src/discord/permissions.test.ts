import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BOT_PERMISSIONS, describeMissing, INVITE_PERMISSIONS } from './permissions.ts';

describe('the permissions the bot asks for', () => {
  it('are what the README’s invite asks for, and name what breaks without each', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const invite = /permissions=(\d+)/.exec(readme)![1]!;
    expect(BigInt(invite)).toBe(INVITE_PERMISSIONS);
    expect(BOT_PERMISSIONS.map((p) => p.name)).toEqual([
      'View Channel',
      'Connect',
      'Send Messages',
      'Embed Links',
      'Attach Files',
      'Change Nickname',
    ]);
    const nick = BOT_PERMISSIONS.filter((p) => p.name === 'Change Nickname');
    expect(describeMissing(nick)).toMatch(
      /^Missing permissions: \*\*Change Nickname\*\* \(my 🔴 REC nickname/,
    );
  });
});
