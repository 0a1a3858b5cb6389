// The chart as a release: renders that do not rotate anything, the migration hook Jobs, and
// what a rollout needs (preStop delay, grace period, the drain's own deadline). Helm 4 and
// kubectl from scripts/k8s-tools.mjs, as tests/integration/delivery.test.ts uses them.
import { SERVICE_NAMES } from '@chronicler/contracts';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot, testMode } from '../support/system.ts';

const chart = path.join(repoRoot, 'charts/chronicler');
const ciValues = readdirSync(path.join(chart, 'ci'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => path.join(chart, 'ci', f));
const GIVEN_KEY = 'a-token-key-of-at-least-thirty-two-characters';

interface Env {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Container {
  name: string;
  image: string;
  securityContext?: Record<string, unknown>;
  volumeMounts?: { mountPath: string }[];
  env?: Env[];
  envFrom?: { secretRef?: { name: string } }[];
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
}
interface PodTemplate {
  metadata: { annotations?: Record<string, string>; labels?: Record<string, string> };
  spec: {
    containers: Container[];
    securityContext?: Record<string, unknown>;
    terminationGracePeriodSeconds?: number;
    restartPolicy?: string;
  };
}
interface K8sObject {
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: { template?: PodTemplate; backoffLimit?: number; activeDeadlineSeconds?: number };
  data?: Record<string, string>;
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
const podTemplates = (objects: K8sObject[]) =>
  Object.fromEntries(
    objects.filter((o) => o.spec?.template).map((o) => [`${o.kind}/${o.metadata.name}`, o.spec!.template]),
  );
const envOf = (c: Container) => new Map((c.env ?? []).map((e) => [e.name, e]));
const workloads = (objects: K8sObject[]) =>
  objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');

/** The services with committed migrations: a folder of .sql files. */
const migrated = SERVICE_NAMES.filter((name) => {
  const dir = path.join(repoRoot, 'services', name, 'migrations');
  return existsSync(dir) && readdirSync(dir).some((f) => f.endsWith('.sql'));
});

describe.runIf(testMode === 'embedded')('the chart as a release: secrets, migrations, rollouts', () => {
  let helm: string;
  let kubectl: string;
  let kustomizeHelm: string;
  const render = (extra: string[] = []) => docs(ok(helm, ['template', 'chronicler', chart, ...extra]));

  beforeAll(() => {
    ({ helm, kubectl, kustomizeHelm } = JSON.parse(ok(process.execPath, ['scripts/k8s-tools.mjs'])) as {
      helm: string;
      kubectl: string;
      kustomizeHelm: string;
    });
  });

  it('gives identical pod templates on two renders: default values, every ci/ file, the dev overlay through kustomize', () => {
    for (const extra of [[], ...ciValues.map((f) => ['-f', f])]) {
      const [a, b] = [render(extra), render(extra)];
      expect(Object.keys(podTemplates(a)).length, extra.join(' ')).toBeGreaterThan(0);
      expect(podTemplates(b), extra.join(' ')).toEqual(podTemplates(a));
    }
    const kustomize = () =>
      docs(
        ok(kubectl, [
          'kustomize',
          '--enable-helm',
          '--helm-command',
          kustomizeHelm,
          '--load-restrictor',
          'LoadRestrictionsNone',
          'k8s/overlays/dev',
        ]),
      );
    // The dev overlay gives its own key: two renders are the same object for object.
    const [a, b] = [kustomize(), kustomize()];
    expect(b).toEqual(a);
    expect(a.some((o) => o.metadata.name.endsWith('-jwt'))).toBe(false);
  });

  it('generates the token key once into a Secret Helm keeps, read by the auth pods, outside the checksum', () => {
    const objects = render();
    const jwt = objects.find((o) => o.kind === 'Secret' && o.metadata.name === 'chronicler-jwt')!;
    expect(jwt.metadata.annotations).toMatchObject({ 'helm.sh/resource-policy': 'keep' });
    expect(Buffer.from(jwt.data!.AUTH_JWT_SECRET!, 'base64').toString()).toMatch(/^[A-Za-z0-9]{48}$/);
    const main = objects.find((o) => o.kind === 'Secret' && o.metadata.name === 'chronicler-secrets')!;
    expect(main.data).not.toHaveProperty('AUTH_JWT_SECRET');
    for (const w of workloads(objects)) {
      const key = envOf(w.spec!.template!.spec.containers[0]!).get('AUTH_JWT_SECRET');
      if (component(w) === 'auth')
        expect(key?.valueFrom?.secretKeyRef).toEqual({ name: 'chronicler-jwt', key: 'AUTH_JWT_SECRET' });
      else expect(key, component(w)).toBeUndefined();
    }
    // A given key: no generated Secret, the key in the chart's Secret.
    const given = render(['--set', `secrets.AUTH_JWT_SECRET=${GIVEN_KEY}`]);
    expect(given.some((o) => o.metadata.name === 'chronicler-jwt')).toBe(false);
    const givenMain = given.find((o) => o.kind === 'Secret' && o.metadata.name === 'chronicler-secrets')!;
    expect(Buffer.from(givenMain.data!.AUTH_JWT_SECRET!, 'base64').toString()).toBe(GIVEN_KEY);
    // The checksum follows what the values give (configuration and secrets), so a change
    // still rolls the pods; a generated key never changes it.
    const checksum = (objs: K8sObject[]) =>
      workloads(objs)[0]!.spec!.template!.metadata.annotations!['checksum/config'];
    const base = checksum(objects);
    expect(checksum(render())).toBe(base);
    expect(checksum(render(['--set', 'config.LOG_LEVEL=debug']))).not.toBe(base);
    expect(checksum(given)).not.toBe(base);
    expect(checksum(render(['--set', `secrets.AUTH_JWT_SECRET=${GIVEN_KEY}x`]))).not.toBe(checksum(given));
  });

  it('generates the live ingest key once into a Secret Helm keeps, read by every gateway pod', () => {
    const objects = render();
    const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === 'chronicler-live-ingest')!;
    expect(secret.metadata.annotations).toMatchObject({ 'helm.sh/resource-policy': 'keep' });
    expect(Buffer.from(secret.data!.LIVE_INGEST_KEY!, 'base64').toString()).toMatch(/^[A-Za-z0-9]{48}$/);
    const main = objects.find((o) => o.kind === 'Secret' && o.metadata.name === 'chronicler-secrets')!;
    expect(main.data).not.toHaveProperty('LIVE_INGEST_KEY');
    for (const w of workloads(objects)) {
      const key = envOf(w.spec!.template!.spec.containers[0]!).get('LIVE_INGEST_KEY');
      if (component(w) === 'gateway')
        expect(key?.valueFrom?.secretKeyRef).toEqual({
          name: 'chronicler-live-ingest',
          key: 'LIVE_INGEST_KEY',
        });
      else expect(key, component(w)).toBeUndefined();
    }
    const given = render(['--set', `secrets.LIVE_INGEST_KEY=${GIVEN_KEY}`]);
    expect(given.some((o) => o.metadata.name === 'chronicler-live-ingest')).toBe(false);
  });

  it('renders live-fanout with its own Deployment, PDB, autoscaler and NetworkPolicy', () => {
    const objects = render([
      '--set',
      'defaults.autoscaling.enabled=true',
      '--set',
      'networkPolicy.enabled=true',
    ]);
    const kinds = objects
      .filter((o) => o.metadata.name === 'chronicler-live-fanout')
      .map((o) => o.kind)
      .sort();
    expect(kinds).toEqual(
      ['Deployment', 'HorizontalPodAutoscaler', 'NetworkPolicy', 'PodDisruptionBudget', 'Service'].sort(),
    );
  });

  it('tells GitOps users in NOTES.txt to give the key through existingSecret', () => {
    const out = ok(helm, ['install', 'chronicler', chart, '--dry-run=client']);
    expect(out).toContain('TOKEN KEY (AUTH_JWT_SECRET)');
    expect(out).toMatch(/helm template, Argo CD,[\s\S]*existingSecret/);
    const given = ok(helm, [
      'install',
      'chronicler',
      chart,
      '--dry-run=client',
      '--set',
      `secrets.AUTH_JWT_SECRET=${GIVEN_KEY}`,
    ]);
    expect(given).not.toContain('TOKEN KEY');
  });

  it('renders a pre-install/pre-upgrade migration Job per service schema, with the service image, and the pods wait for it', () => {
    const objects = render();
    const jobs = objects.filter((o) => o.kind === 'Job');
    expect(jobs.map((j) => j.metadata.labels?.['chronicler.dev/schema-of']).sort()).toEqual(
      [...migrated].sort(),
    );
    const images = new Map(
      workloads(objects).map((w) => [component(w), w.spec!.template!.spec.containers[0]!.image]),
    );
    for (const job of jobs) {
      const name = job.metadata.labels!['chronicler.dev/schema-of']!;
      expect(job.metadata.annotations).toMatchObject({
        'helm.sh/hook': 'pre-install,pre-upgrade',
        'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
      });
      expect(job.spec).toMatchObject({ backoffLimit: 1, activeDeadlineSeconds: 900 });
      const pod = job.spec!.template!;
      expect(pod.spec.restartPolicy).toBe('Never');
      // Not a backend of the service's Service: its own component label.
      expect(component(job)).toBe('migrations');
      const c = pod.spec.containers[0]!;
      expect(c.image, name).toBe(images.get(name));
      // As restricted as the service's own pods, with the writable /tmp tsx needs.
      expect(pod.spec.securityContext, name).toMatchObject({ runAsNonRoot: true });
      expect(c.securityContext, name).toMatchObject({
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
      expect(
        c.volumeMounts?.map((m) => m.mountPath),
        name,
      ).toEqual(['/tmp']);
      const env = envOf(c);
      expect(env.get('MIGRATIONS')?.value).toBe('job');
      expect(env.get('MIGRATION_LOCK_TIMEOUT_MS')?.value).toBe('60000');
      expect(env.get('DATABASE_URL')?.value).toContain('$(DATABASE_PASSWORD)');
      expect(env.get('DATABASE_PASSWORD')?.valueFrom?.secretKeyRef).toEqual({
        name: 'postgresql',
        key: 'password',
      });
    }
    for (const w of workloads(objects))
      expect(envOf(w.spec!.template!.spec.containers[0]!).get('MIGRATIONS')?.value, component(w)).toBe(
        'wait',
      );

    // The URLs in an existing Secret: the Job reads DATABASE_URL from it, and no other key.
    const existing = render(['-f', path.join(chart, 'ci/existing-secret-values.yaml')]);
    for (const job of existing.filter((o) => o.kind === 'Job')) {
      const c = job.spec!.template!.spec.containers[0]!;
      expect(c.envFrom).toBeUndefined();
      expect(envOf(c).get('DATABASE_URL')?.valueFrom?.secretKeyRef).toEqual({
        name: 'chronicler-prod',
        key: 'DATABASE_URL',
      });
    }

    // Without the Job, each pod migrates at start as before.
    const off = render(['--set', 'migrations.job.enabled=false']);
    expect(off.some((o) => o.kind === 'Job')).toBe(false);
    for (const w of workloads(off))
      expect(envOf(w.spec!.template!.spec.containers[0]!).get('MIGRATIONS')?.value).toBe('apply');
  });

  it('gives every pod a preStop delay, and a grace period that covers it and the drain, which stops itself first', () => {
    for (const w of workloads(render())) {
      const pod = w.spec!.template!.spec;
      const c = pod.containers[0]!;
      const command = c.lifecycle?.preStop?.exec?.command;
      expect(command?.[0], component(w)).toBe('sleep');
      const delay = Number(command![1]);
      expect(delay).toBeGreaterThan(0);
      const grace = pod.terminationGracePeriodSeconds!;
      const drainMs = Number(envOf(c).get('SHUTDOWN_TIMEOUT_MS')?.value);
      expect(delay * 1000 + drainMs, component(w)).toBeLessThan(grace * 1000);
      if (component(w) === 'gateway') expect(delay).toBeGreaterThanOrEqual(10);
    }
  });

  type Rule = { ports?: { port?: number | string; protocol?: string }[]; to?: unknown[] };
  const egressOf = (objects: K8sObject[], name: string): Rule[] =>
    (
      objects.find((o) => o.kind === 'NetworkPolicy' && component(o) === name)?.spec as unknown as {
        egress: Rule[];
      }
    ).egress;

  it('lets the voice bot reach Discord voice over UDP on any port and HTTPS where the operator allows it, and no other service UDP beyond DNS', () => {
    // By default neither is open: no port to every address unless the values say so.
    const closed = egressOf(render(['--set', 'networkPolicy.enabled=true']), 'voice-bot');
    expect(closed.some((r) => r.ports?.some((p) => p.protocol === 'UDP' && p.port === undefined))).toBe(
      false,
    );
    expect(closed.some((r) => r.ports?.some((p) => p.port === 443))).toBe(false);
    const objects = render([
      '--set',
      'networkPolicy.enabled=true',
      '--set',
      'networkPolicy.voiceUdpTo[0].ipBlock.cidr=0.0.0.0/0',
      '--set',
      'networkPolicy.httpsTo[0].ipBlock.cidr=0.0.0.0/0',
    ]);
    const bot = egressOf(objects, 'voice-bot');
    const udp = bot.filter((r) => r.ports?.some((p) => p.protocol === 'UDP' && p.port === undefined));
    expect(udp).toEqual([{ ports: [{ protocol: 'UDP' }], to: [{ ipBlock: { cidr: '0.0.0.0/0' } }] }]);
    expect(bot.some((r) => r.ports?.some((p) => p.port === 443 && p.protocol === 'TCP'))).toBe(true);
    for (const np of objects.filter((o) => o.kind === 'NetworkPolicy' && component(o) !== 'voice-bot')) {
      const rules = egressOf(objects, component(np)!);
      const anyUdp = rules.some((r) => r.ports?.some((p) => p.protocol === 'UDP' && p.port !== 53));
      expect(anyUdp, component(np)).toBe(false);
    }
    // Narrowed when the operator names the peers.
    const narrowed = egressOf(
      render([
        '--set',
        'networkPolicy.enabled=true',
        '--set',
        'networkPolicy.voiceUdpTo[0].ipBlock.cidr=0.0.0.0/0',
      ]),
      'voice-bot',
    );
    expect(narrowed.find((r) => r.ports?.[0]?.protocol === 'UDP' && !r.ports[0].port)?.to).toEqual([
      { ipBlock: { cidr: '0.0.0.0/0' } },
    ]);
  });

  it('lets the AI services reach the all-on example in-cluster model server on 11434, and only them', () => {
    const objects = render(['-f', path.join(chart, 'ci/all-on-values.yaml')]);
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('-config'))!;
    expect(config.data?.OPENAI_BASE_URL).toBe('http://ollama.ai:11434/v1');
    for (const np of objects.filter((o) => o.kind === 'NetworkPolicy')) {
      const rule = egressOf(objects, component(np)!).find((r) => r.ports?.some((p) => p.port === 11434));
      if (['chat', 'planning', 'summary'].includes(component(np)!)) {
        expect(rule, component(np)).toEqual({
          ports: [{ port: 11434, protocol: 'TCP' }],
          to: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ai' } },
              podSelector: { matchLabels: { app: 'ollama' } },
            },
          ],
        });
      } else expect(rule, component(np)).toBeUndefined();
    }
  });

  it('keeps the voice bot recordings and journal on a claimed volume by default, one pod down at a time, waiting for its hand-over', () => {
    const objects = render([
      '--set',
      'services.voice-bot.replicas=2',
      '--set',
      'services.voice-bot.shardCount=4',
    ]);
    const bot = objects.find((o) => o.kind === 'StatefulSet' && component(o) === 'voice-bot')!;
    const spec = bot.spec as unknown as {
      replicas: number;
      volumeClaimTemplates: {
        metadata: { name: string };
        spec: { resources: { requests: { storage: string } } };
      }[];
      template: PodTemplate & { spec: { volumes: { name: string }[] } };
    };
    expect(spec.replicas).toBe(2);
    expect(
      spec.volumeClaimTemplates.map((v) => [v.metadata.name, v.spec.resources.requests.storage]),
    ).toEqual([['data', '20Gi']]);
    // /data is the claim, not an emptyDir.
    expect(spec.template.spec.volumes.map((v) => v.name)).not.toContain('data');
    const env = envOf(spec.template.spec.containers[0]!);
    expect(env.get('SHARD_REPLICAS')?.value).toBe('2');
    const pdb = objects.find((o) => o.kind === 'PodDisruptionBudget' && component(o) === 'voice-bot')!;
    expect((pdb.spec as unknown as { maxUnavailable: number }).maxUnavailable).toBe(1);
    // The drain's deadline covers the bot's stop: its streams' last finals (10 s) with room to spare.
    const drainMs = Number(env.get('SHUTDOWN_TIMEOUT_MS')?.value);
    expect(drainMs).toBeGreaterThanOrEqual(60_000);
    expect(spec.template.spec.terminationGracePeriodSeconds! * 1000).toBeGreaterThan(drainMs);
  });
});
