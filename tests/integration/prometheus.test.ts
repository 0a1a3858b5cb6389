import { SERVICE_NAMES, type Transcript } from '@chronicler/contracts';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeepgramLivePeer } from '../peers/deepgram-live.ts';
import { guildIdForShard, type DiscordPeer, type PeerGuild } from '../peers/discord.ts';
import { voiceTable, type VoiceTable } from '../peers/discord-voice/table.ts';
import { apiCall } from '../support/api.ts';
import { LiveViewer } from '../support/live-viewer.ts';
import { freePort, repoRoot, testMode, waitFor, type TestSystem } from '../support/system.ts';
import { sessionIdIn, startVoiceRig, type VoiceRig } from '../support/voice-rig.ts';

const PROMETHEUS = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';
const PROMTOOL = process.env.PROMTOOL_BIN ?? '/usr/bin/promtool';
const DASHBOARDS = path.join(repoRoot, 'charts/chronicler/dashboards');
const RULES = path.join(repoRoot, 'charts/chronicler/alerts/chronicler.rules.yaml');
/** The namespace label the ServiceMonitor gives every series in a cluster; the dashboards filter on it. */
const NAMESPACE = 'chronicler-test';
/**
 * Grafana's variables as a dashboard would be shown: the rate window spans the whole workload
 * (a few minutes at most), so a panel has data when anything happened during the test.
 */
const GRAFANA_VARIABLES: Record<string, string> = {
  namespace: NAMESPACE,
  __rate_interval: '5m',
  __interval: '15s',
  __range: '1h',
};

/** Why this test cannot run here ('' when it can), said in its title. */
const skipReason = (() => {
  if (testMode !== 'cluster')
    return ' (skipped in embedded mode: the dashboards read JetStream consumer lag and one process per service; run with CHRONICLER_TEST_MODE=cluster)';
  for (const [bin, pkg] of [
    [PROMETHEUS, 'prometheus'],
    [PROMTOOL, 'prometheus'],
    ['/usr/bin/espeak-ng', 'espeak-ng'],
  ] as const) {
    if (!existsSync(bin)) return ` (skipped: no ${bin}; apt-get install ${pkg})`;
  }
  return '';
})();
if (skipReason) console.warn(`[prometheus] ${skipReason.trim()}`);

interface Panel {
  id?: number;
  title?: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}

/** Every panel query of every dashboard, with Grafana's variables substituted. */
function panelQueries(): { dashboard: string; panel: string; expr: string }[] {
  const out: { dashboard: string; panel: string; expr: string }[] = [];
  for (const file of readdirSync(DASHBOARDS).filter((f) => f.endsWith('.json'))) {
    const dashboard = JSON.parse(readFileSync(path.join(DASHBOARDS, file), 'utf8')) as { panels: Panel[] };
    const walk = (panels: Panel[]) => {
      for (const p of panels) {
        if (p.panels) walk(p.panels);
        for (const t of p.targets ?? []) {
          if (!t.expr) continue;
          const expr = t.expr.replace(/\$\{?(\w+)\}?/g, (whole, name: string) => {
            const value = GRAFANA_VARIABLES[name];
            if (value === undefined)
              throw new Error(`${file}: panel '${p.title}' uses an unknown variable ${whole}`);
            return value;
          });
          out.push({ dashboard: file, panel: `${p.id} ${p.title}`, expr });
        }
      }
    };
    walk(dashboard.panels);
  }
  return out;
}

/** A Prometheus server scraping the system's processes every second, with the chart's alert rules loaded. */
class PrometheusServer {
  private constructor(
    readonly url: string,
    private readonly proc: ChildProcess,
    private readonly dir: string,
  ) {}

  static async start(targets: Map<string, string>): Promise<PrometheusServer> {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'chronicler-prometheus-'));
    const port = await freePort();
    // As the ServiceMonitor has it: one job per Service (named after it), the namespace label
    // and the Service's labels it copies (targetLabels) on every series. JSON is YAML: no YAML
    // writer needed for the configuration.
    const scrapeConfigs = [...targets].map(([service, url]) => ({
      job_name: service,
      metrics_path: '/metrics',
      static_configs: [
        {
          targets: [new URL(url).host],
          labels: {
            namespace: NAMESPACE,
            service,
            app_kubernetes_io_component: service,
            app_kubernetes_io_part_of: 'chronicler',
          },
        },
      ],
    }));
    writeFileSync(
      path.join(dir, 'prometheus.yml'),
      JSON.stringify({
        global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
        rule_files: [RULES],
        scrape_configs: scrapeConfigs,
      }),
    );
    const proc = spawn(
      PROMETHEUS,
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const server = new PrometheusServer(`http://127.0.0.1:${port}`, proc, dir);
    try {
      await waitFor(async () => {
        if (proc.exitCode !== null) throw new Error(`prometheus exited with ${proc.exitCode}`);
        const res = await fetch(`${server.url}/-/ready`).catch(() => undefined);
        return res?.status === 200;
      }, 30_000);
    } catch (err) {
      await server.stop();
      throw err;
    }
    return server;
  }

  async api<T>(pathAndQuery: string): Promise<T> {
    const res = await fetch(`${this.url}/api/v1/${pathAndQuery}`);
    const body = (await res.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`Prometheus ${pathAndQuery}: ${body.error}`);
    return body.data;
  }

  query(
    expr: string,
  ): Promise<{ resultType: string; result: { metric: object; value: [number, string] }[] }> {
    return this.api(`query?query=${encodeURIComponent(expr)}`);
  }

  /** Resolves once every target was scraped successfully after `since` (ms). */
  async scrapedSince(since: number, timeoutMs = 20_000): Promise<void> {
    await waitFor(async () => {
      const { activeTargets } = await this.api<{
        activeTargets: { health: string; lastScrape: string }[];
      }>('targets?state=active');
      return (
        activeTargets.length > 0 &&
        activeTargets.every((t) => t.health === 'up' && Date.parse(t.lastScrape) > since)
      );
    }, timeoutMs);
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode === null && this.proc.signalCode === null) {
      const exited = new Promise((resolve) => this.proc.once('exit', resolve));
      this.proc.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

// The dashboards and alert rules of the chart, checked against a real Prometheus scraping a
// cluster-mode system (one process per service) through a replayed live session with a
// speech provider that drops once, and a few AI calls: every panel must show something.
describe.skipIf(skipReason)(
  `Prometheus: every dashboard panel has data, every alert rule loads${skipReason}`,
  () => {
    let rig: VoiceRig;
    let system: TestSystem;
    let prometheus: PrometheusServer;
    let discord: DiscordPeer;
    let table: VoiceTable;
    let deepgram: DeepgramLivePeer;
    let owner: string;
    const guild: PeerGuild = {
      id: guildIdForShard(0, 1, 11),
      name: 'Observability Night',
      ownerId: '2001',
      channels: [
        { id: '4101', name: 'table-talk', type: 0 },
        { id: '4102', name: 'Stage', type: 2 },
      ],
      members: [
        { id: '2001', username: 'matt', nick: 'Matt' },
        { id: '2002', username: 'laura', nick: 'Laura' },
      ],
    };
    const matt = { key: '2001', displayName: 'Matt', userId: '2001' };
    const laura = { key: '2002', displayName: 'Laura', userId: '2002' };

    beforeAll(async () => {
      rig = await startVoiceRig(guild);
      ({ system, discord, deepgram, owner } = rig);
      table = voiceTable(discord, guild.id, '4102');
      prometheus = await PrometheusServer.start(system.opsUrls!());
    }, 180_000);

    afterAll(async () => {
      await table?.close();
      await prometheus?.stop();
      await rig?.stop();
    });

    it('scrapes every process of the system', async () => {
      // One process a service.
      const targets = system.opsUrls!();
      expect(targets.size).toBe(SERVICE_NAMES.length);
      await prometheus.scrapedSince(Date.now());
      // Each target has been scraped since; the sum is read until one evaluation sees them all
      // up at once. With a 1 s interval and timeout, the next scrape of a process below the
      // default CPU priority on a busy machine can time out between the two reads.
      let up = 0;
      await waitFor(async () => {
        const r = await prometheus.query(`sum(up{namespace="${NAMESPACE}"})`);
        up = Number(r.result[0]?.value[1]);
        return up === SERVICE_NAMES.length;
      }, 20_000).catch(() => {});
      expect(up).toBe(SERVICE_NAMES.length);
    }, 45_000);

    it('accepts the alert rules: promtool checks the file, and Prometheus evaluates every rule without error', async () => {
      const check = spawnSync(PROMTOOL, ['check', 'rules', RULES], { encoding: 'utf8' });
      expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
      const { groups } = await prometheus.api<{
        groups: {
          name: string;
          rules: { name: string; type: string; health: string; lastError?: string }[];
        }[];
      }>('rules');
      const rules = groups.flatMap((g) => g.rules);
      expect(rules.length).toBeGreaterThanOrEqual(4);
      expect(rules.filter((r) => r.type === 'alerting').length).toBe(rules.length);
      // Evaluated at least once, without an error (a query that parses can still fail to evaluate).
      await waitFor(async () => {
        const all = (
          await prometheus.api<{ groups: { rules: { health: string }[] }[] }>('rules')
        ).groups.flatMap((g) => g.rules);
        return all.every((r) => r.health === 'ok');
      }, 20_000);
    }, 60_000);

    it('has data for every panel query of every dashboard after a live session and some AI calls', async () => {
      const tid = await liveSession();
      // AI calls: the session's own summary (started by its end) and two chat turns about it.
      await waitFor(async () => {
        const t = (await apiCall<Transcript>(system.url, 'GET', `/transcripts/${tid}`, owner)).body;
        return t.summary_status === 'done';
      }, 60_000);
      for (const question of ['Who rolls for perception?', 'What does Vex draw?']) {
        const chat = await apiCall(system.url, 'POST', '/chat', owner, {
          transcript_id: tid,
          messages: [{ role: 'user', content: question }],
        });
        expect(chat.status).toBe(200);
      }
      await prometheus.scrapedSince(Date.now());
      // Counted where they happen: the pipeline's provider trouble and the AI calls.
      const reconnects = await prometheus.query(
        `sum(chronicler_speech_reconnects_total{namespace="${NAMESPACE}",provider="deepgram"})`,
      );
      expect(Number(reconnects.result[0]?.value[1])).toBeGreaterThanOrEqual(1);
      // Every final line handed to socket.io, timed from the end of its speech (never before it).
      const latency = await prometheus.query(
        `sum(chronicler_live_utterance_latency_seconds_count{namespace="${NAMESPACE}"}) and sum(chronicler_live_utterance_latency_seconds_sum{namespace="${NAMESPACE}"}) > 0`,
      );
      expect(Number(latency.result[0]?.value[1])).toBeGreaterThanOrEqual(3);
      const ai = await prometheus.query(
        `sum by (type) (chronicler_ai_requests_total{namespace="${NAMESPACE}"})`,
      );
      expect(
        Object.fromEntries(ai.result.map((r) => [(r.metric as { type: string }).type, Number(r.value[1])])),
      ).toMatchObject({ chat: 2, session_summary: expect.any(Number) });

      const queries = panelQueries();
      expect(new Set(queries.map((q) => q.dashboard))).toEqual(
        new Set(['overview.json', 'live.json', 'ai-cost.json', 'bus.json']),
      );
      const empty: string[] = [];
      for (const q of queries) {
        const data = await prometheus.query(q.expr);
        // A quantile of nothing is NaN: a series that exists but saw nothing is not data either.
        const values = data.result.map((r) => Number(r.value[1]));
        if (!values.some((v) => Number.isFinite(v))) empty.push(`${q.dashboard} / ${q.panel}: ${q.expr}`);
      }
      expect(empty).toEqual([]);
    }, 240_000);

    /** Two players speak through the Discord bot; the provider drops Laura's stream once. */
    async function liveSession(): Promise<string> {
      await table.join('2001');
      await table.join('2002');
      const lines = [
        'Welcome back to the city of Kraghammer',
        'Vex draws her bow and looks around',
        'Roll for perception everyone',
      ];
      const turns = await table.prepare([
        { speaker: matt, text: lines[0]! },
        { speaker: laura, text: lines[1]! },
        { speaker: matt, text: lines[2]! },
      ]);
      deepgram.script(turns);
      const started = await discord.command(guild.id, '4101', '2001', 'start', { name: 'Metrics night' });
      const tid = sessionIdIn(started.content);
      await waitFor(
        async () => (await apiCall(system.url, 'GET', `/transcripts/${tid}`, owner)).status === 200,
        20_000,
      );
      const viewer = new LiveViewer(system.url, tid, owner);
      try {
        await table.play(turns.slice(0, 1), { pauseSeconds: 1.2 });
        await viewer.untilLines(1, 30_000);
        // Matt's stream is open; the next one (Laura's) is dropped after its first second of audio.
        deepgram.dropNext({ afterBytes: 32_000 });
        await table.play(turns.slice(1), { pauseSeconds: 1.2 });
        await viewer.untilLines(3, 60_000);
        // Scraped while the session is live: the sessions gauge and the open streams are above 0.
        await prometheus.scrapedSince(Date.now() + 5_000, 30_000);
        const active = await prometheus.query(
          `max(chronicler_live_sessions_active{namespace="${NAMESPACE}"})`,
        );
        expect(Number(active.result[0]?.value[1])).toBe(1);
        const stopped = await discord.command(guild.id, '4101', '2001', 'stop');
        expect(stopped.content).toContain('Recording stopped');
        await viewer.untilEnded(30_000);
        expect(viewer.ordered().map((l) => l.text)).toEqual(lines);
      } finally {
        viewer.close();
      }
      return tid;
    }
  },
);
