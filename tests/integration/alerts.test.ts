// The chart's alert rules, checked by Prometheus's own tool: `promtool check rules` on the
// rule file and `promtool test rules` on its cases (charts/chronicler/alerts/
// chronicler.rules.test.yaml), which say for every alert when it fires, with which labels and
// annotations, and when it must not. The rules read no live system: one run, in embedded mode.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { describe, expect, it } from 'vitest';
import { repoRoot, testMode } from '../support/system.ts';

const PROMTOOL = process.env.PROMTOOL_BIN ?? '/usr/bin/promtool';
const ALERTS = path.join(repoRoot, 'charts/chronicler/alerts');
const RULES = path.join(ALERTS, 'chronicler.rules.yaml');
const CASES = path.join(ALERTS, 'chronicler.rules.test.yaml');

interface RuleFile {
  groups: { name: string; rules: { alert: string; expr: string; labels?: Record<string, string> }[] }[];
}
interface CaseFile {
  rule_files: string[];
  tests: {
    name: string;
    input_series: { series: string }[];
    alert_rule_test: { alertname: string; exp_alerts: unknown[] }[];
  }[];
}

const skipReason = existsSync(PROMTOOL) ? '' : ` (skipped: no ${PROMTOOL}; apt-get install prometheus)`;

describe.runIf(testMode === 'embedded')(`alert rules under promtool${skipReason}`, () => {
  const rules = (parseYaml(readFileSync(RULES, 'utf8')) as RuleFile).groups.flatMap((g) => g.rules);
  const cases = parseYaml(readFileSync(CASES, 'utf8')) as CaseFile;

  it.skipIf(skipReason)(
    'promtool accepts the rules and every case of chronicler.rules.test.yaml passes',
    () => {
      const check = spawnSync(PROMTOOL, ['check', 'rules', RULES], { encoding: 'utf8' });
      expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
      const test = spawnSync(PROMTOOL, ['test', 'rules', CASES], { encoding: 'utf8' });
      expect(test.status, `${test.stdout}${test.stderr}`).toBe(0);
      expect(test.stdout).toContain('SUCCESS');
    },
  );

  it('has, for every alert, a case where it fires and one where it must not', () => {
    expect(cases.rule_files).toEqual(['chronicler.rules.yaml']);
    const fires = new Set<string>();
    const silent = new Set<string>();
    for (const t of cases.tests)
      for (const a of t.alert_rule_test) (a.exp_alerts.length > 0 ? fires : silent).add(a.alertname);
    const alerts = rules.map((r) => r.alert).sort();
    expect([...fires].sort()).toEqual(alerts);
    expect([...silent].sort()).toEqual(alerts);
  });

  it("holds the issue's two false alarms as cases that must not fire", () => {
    const named = (words: string) => cases.tests.find((t) => t.name.includes(words));
    const pause = named('a 15-minute table break')!;
    expect(pause.alert_rule_test.map((a) => a.alertname)).toContain('ChroniclerLiveLinesNotStored');
    expect(pause.alert_rule_test.every((a) => a.exp_alerts.length === 0)).toBe(true);
    // Sessions stay open through the break: the old rule (open sessions, no line stored) fired here.
    expect(pause.input_series.some((s) => s.series.startsWith('chronicler_live_sessions_active{'))).toBe(
      true,
    );
    const shared = named("another application's job down in a shared Prometheus")!;
    expect(shared.alert_rule_test).toEqual([
      expect.objectContaining({ alertname: 'ChroniclerServiceDown', exp_alerts: [] }),
    ]);
    expect(
      shared.input_series.filter((s) => /^up\{.*\} ?$/.test(s.series) && !s.series.includes('part_of')),
    ).toHaveLength(2);
  });

  it('reads only the chart’s own targets in every rule', () => {
    for (const r of rules) {
      const selectors = [
        ...r.expr.matchAll(/\b(chronicler_[a-z_]+|up|process_start_time_seconds)\{([^}]*)\}/g),
      ];
      expect(selectors.length, r.alert).toBeGreaterThan(0);
      for (const [whole, , inside] of selectors)
        expect(inside, `${r.alert}: ${whole}`).toContain('app_kubernetes_io_part_of="chronicler"');
      expect(r.labels?.severity, r.alert).toMatch(/^(page|ticket)$/);
    }
  });
});
