// The chart derived from each service's declaration (charts/chronicler/needs.json): its secret
// keys, its database URL, its egress, the migration Jobs. Rendered with the real helm of
// scripts/k8s-tools.mjs, with the default values and every ci/ file.
import { SERVICE_NAMES, SERVICE_NEEDS } from '@chronicler/contracts';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, testMode } from '../support/system.ts';

const chart = path.join(repoRoot, 'charts/chronicler');
const ciValues = readdirSync(path.join(chart, 'ci'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => path.join(chart, 'ci', f));

interface Peer {
  ipBlock?: { cidr: string };
  podSelector?: unknown;
  namespaceSelector?: unknown;
}
interface Rule {
  ports?: { port?: number | string; protocol?: string }[];
  to?: Peer[];
}
interface Env {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface K8sObject {
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: {
    podSelector?: { matchLabels?: Record<string, string> };
    egress?: Rule[];
    template?: {
      metadata: { labels?: Record<string, string> };
      spec: { containers: { env?: Env[]; envFrom?: { secretRef?: { name: string } }[] }[] };
    };
  };
}

function ok(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0)
    throw new Error(`${path.basename(cmd)} ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
  return r.stdout;
}
const docs = (text: string): K8sObject[] =>
  parseAllDocuments(text)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((d): d is K8sObject => d !== null);
const component = (o: K8sObject) => o.metadata.labels?.['app.kubernetes.io/component'];
const pods = (objects: K8sObject[]) =>
  objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet' || o.kind === 'Job');
const secretKeys = (o: K8sObject) =>
  (o.spec!.template!.spec.containers[0]!.env ?? [])
    .filter((e) => e.valueFrom?.secretKeyRef && !/_(PASSWORD|URL)$/.test(e.name))
    .map((e) => e.name);
const envNames = (o: K8sObject) => (o.spec!.template!.spec.containers[0]!.env ?? []).map((e) => e.name);
const everywhere = (p: Peer) => p.ipBlock?.cidr === '0.0.0.0/0' || p.ipBlock?.cidr === '::/0';

describe.runIf(testMode === 'embedded')('the chart from each service’s declaration', () => {
  let helm: string;
  const render = (extra: string[] = []) => docs(ok(helm, ['template', 'chronicler', chart, ...extra]));

  beforeAll(() => {
    ({ helm } = JSON.parse(ok(process.execPath, ['scripts/k8s-tools.mjs'])) as { helm: string });
  });

  it('is one declaration: the code reads a byte-identical copy, and it names every service of the values', () => {
    const chartCopy = readFileSync(path.join(chart, 'needs.json'), 'utf8');
    const codeCopy = readFileSync(
      path.join(repoRoot, 'services/shared/contracts/src/service-needs.json'),
      'utf8',
    );
    // Change charts/chronicler/needs.json, then copy it over the contracts' one.
    expect(codeCopy).toBe(chartCopy);
    const values = parseYaml(readFileSync(path.join(chart, 'values.yaml'), 'utf8')) as {
      services: Record<string, unknown>;
      secrets: Record<string, unknown>;
    };
    expect(Object.keys(values.services).sort()).toEqual([...SERVICE_NAMES].sort());
    for (const name of SERVICE_NAMES) {
      for (const key of SERVICE_NEEDS[name].secrets) expect(Object.keys(values.secrets), name).toContain(key);
      // A schema owner has migrations; a service without a schema has none.
      const dir = path.join(repoRoot, 'services', name, 'migrations');
      expect(existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.sql')), name).toBe(
        SERVICE_NEEDS[name].schema,
      );
    }
  });

  it('refuses to render a service the declaration does not know', () => {
    const r = spawnSync(helm, ['template', 'chronicler', chart, '--set', 'services.mystery.enabled=true'], {
      encoding: 'utf8',
    });
    expect(r.status).not.toBe(0);
    // The values schema names the services; the templates check the declaration too.
    expect(r.stderr).toMatch(/mystery/);
  });

  it('gives each pod only its own secret keys, and a database only to schema owners', () => {
    for (const extra of [[], ...ciValues.map((f) => ['-f', f])]) {
      const objects = render(extra);
      for (const o of pods(objects)) {
        const isJob = o.kind === 'Job';
        const name = (
          isJob ? o.metadata.labels!['chronicler.dev/schema-of'] : component(o)
        ) as keyof typeof SERVICE_NEEDS;
        const where = `${o.kind}/${o.metadata.name} ${extra.join(' ')}`;
        // No Secret handed over whole.
        expect(o.spec!.template!.spec.containers[0]!.envFrom?.some((f) => f.secretRef) ?? false, where).toBe(
          false,
        );
        expect(secretKeys(o).sort(), where).toEqual(isJob ? [] : [...SERVICE_NEEDS[name].secrets].sort());
        const hasDb = envNames(o).includes('DATABASE_URL');
        expect(hasDb, where).toBe(SERVICE_NEEDS[name].schema);
        if (!hasDb) expect(envNames(o), where).not.toContain('DATABASE_PASSWORD');
      }
      const byName = new Map(
        pods(objects)
          .filter((o) => o.kind !== 'Job')
          .map((o) => [component(o), o]),
      );
      const planning = byName.get('planning');
      if (planning) expect(secretKeys(planning)).not.toContain('DISCORD_BOT_TOKEN');
      for (const s of ['gateway', 'voice-bot']) {
        const o = byName.get(s);
        if (o) expect(envNames(o)).not.toContain('DATABASE_URL');
      }
    }
  });

  it('orders the migration Jobs by distinct hook weights', () => {
    const jobs = render().filter((o) => o.kind === 'Job');
    const weights = jobs.map((j) => Number(j.metadata.annotations!['helm.sh/hook-weight']));
    expect(new Set(weights).size).toBe(jobs.length);
    expect(jobs.length).toBe(SERVICE_NAMES.filter((n) => SERVICE_NEEDS[n].schema).length);
  });

  it('opens no egress port to every destination unless the values ask, and each policy reaches only its targets', () => {
    for (const extra of [['--set', 'networkPolicy.enabled=true'], ...ciValues.map((f) => ['-f', f])]) {
      const policies = render(extra).filter((o) => o.kind === 'NetworkPolicy');
      if (!policies.length) continue;
      for (const p of policies) {
        for (const rule of p.spec!.egress ?? []) {
          const where = `${p.metadata.name} ${JSON.stringify(rule)} ${extra.join(' ')}`;
          expect(rule.to?.length, where).toBeGreaterThan(0);
          expect(rule.to!.some(everywhere), where).toBe(false);
        }
      }
      const ports = (name: string) =>
        policies
          .find((p) => p.metadata.name === `chronicler-${name}`)!
          .spec!.egress!.flatMap((r) => (r.ports ?? []).map((x) => x.port));
      for (const name of SERVICE_NAMES) {
        const needs = SERVICE_NEEDS[name];
        expect(ports(name).includes(5432), name).toBe(needs.schema);
        expect(ports(name).includes(4222), name).toBe(needs.bus);
        expect(ports(name).includes(6379), name).toBe(needs.redis);
      }
      // The migration Jobs: a policy of their own, DNS and PostgreSQL only.
      const jobs = policies.find(
        (p) => p.spec!.podSelector?.matchLabels?.['app.kubernetes.io/component'] === 'migrations',
      );
      expect(jobs, extra.join(' ')).toBeDefined();
      expect(
        jobs!.spec!.egress!.flatMap((r) => (r.ports ?? []).map((x) => Number(x.port))).sort((a, b) => a - b),
      ).toEqual([53, 53, 5432]);
    }
    // Asked for: HTTPS to anywhere but private ranges, for the services that call providers only.
    const asked = render([
      '--set',
      'networkPolicy.enabled=true',
      '--set',
      'networkPolicy.httpsTo[0].ipBlock.cidr=0.0.0.0/0',
    ]).filter((o) => o.kind === 'NetworkPolicy');
    for (const name of SERVICE_NAMES) {
      const p = asked.find((o) => o.metadata.name === `chronicler-${name}`)!;
      const https = p.spec!.egress!.some((r) => r.ports?.some((x) => x.port === 443));
      expect(https, name).toBe(SERVICE_NEEDS[name].egress.includes('https'));
    }
  });
});
