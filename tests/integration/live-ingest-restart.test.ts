// A live replay through /api/live-ingest keeps feeding while the gateways restart one after
// the other, with the ingest key given exactly as the chart's default values give it: no
// LIVE_INGEST_KEY in the values, so the chart generates one into its own Secret and every
// gateway pod reads it from there (secretKeyRef). Two gateways behind a load balancer played
// here; the session's ingest token, signed by whichever gateway started it, must verify on the
// other one and on each restarted process, or the feed gets 404 "Live session not found" and
// its turns are lost. Cluster only: the embedded system has one process and its key file.
import type { Transcript } from '@chronicler/contracts';
import { httpSink, readCrd3Turns, replaySession, type LiveSink } from '@chronicler/voice-bot/replay';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { balanceGateways, type BalancedGateways } from '../support/balancer.ts';
import { CRD3_DIR } from '../support/crd3.ts';
import { repoRoot, startSystem, testMode, waitFor, type TestSystem } from '../support/system.ts';

interface K8sObject {
  kind: string;
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> };
  spec?: {
    template?: {
      spec: {
        containers: {
          env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
        }[];
      };
    };
  };
  data?: Record<string, string>;
}

/**
 * The gateway's LIVE_INGEST_KEY as `helm template` with the default values hands it to the
 * pod: the Deployment's secretKeyRef, resolved in the Secret the same render makes.
 */
function chartDefaultIngestKey(): { key: string; secret: K8sObject } {
  const run = (cmd: string, args: string[]) => {
    const r = spawnSync(cmd, args, { cwd: repoRoot, encoding: 'utf8', maxBuffer: 64 << 20 });
    if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
    return r.stdout;
  };
  const { helm } = JSON.parse(run(process.execPath, ['scripts/k8s-tools.mjs'])) as { helm: string };
  const objects = parseAllDocuments(run(helm, ['template', 'chronicler', 'charts/chronicler']))
    .map((d) => d.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null);
  const gateway = objects.find(
    (o) => o.kind === 'Deployment' && o.metadata.labels?.['app.kubernetes.io/component'] === 'gateway',
  )!;
  const ref = gateway.spec!.template!.spec.containers[0]!.env?.find((e) => e.name === 'LIVE_INGEST_KEY')
    ?.valueFrom?.secretKeyRef;
  if (!ref) throw new Error('the gateway pod gets no LIVE_INGEST_KEY from a Secret by default');
  const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === ref.name)!;
  const encoded = secret?.data?.[ref.key];
  if (!encoded) throw new Error(`the render's Secret ${ref.name} has no ${ref.key}`);
  return { key: Buffer.from(encoded, 'base64').toString(), secret };
}

describe.runIf(testMode === 'cluster')(
  'a live replay through gateway restarts with the chart default ingest key',
  () => {
    let system: TestSystem;
    let balancer: BalancedGateways;
    let ingestKey: string;
    let owner: { token: string; id: string };

    beforeAll(async () => {
      const chart = chartDefaultIngestKey();
      ingestKey = chart.key;
      // Kept by Helm on uninstall and read back on upgrade (secret.yaml): stable across releases too.
      expect(chart.secret.metadata.annotations).toMatchObject({ 'helm.sh/resource-policy': 'keep' });
      system = await startSystem({
        processes: 'many',
        services: ['auth', 'transcript', 'live-fanout'],
        // Each gateway process gets the key as its pod would (only the gateway reads it).
        env: { AUTH_LOCAL_ENABLED: 'true', SHUTDOWN_DELAY_MS: '1000', LIVE_INGEST_KEY: ingestKey },
      });
      balancer = await balanceGateways(system);
      const r = await localSignIn(system.url, 'gm');
      owner = { token: r.cookie, id: r.body.user!.id };
    }, 180_000);
    afterAll(async () => {
      balancer?.close();
      await system?.stop();
    });

    /** SIGTERM (a rollout), a clean exit, then the same gateway started again and ready. */
    async function restart(key: 'gateway' | 'gateway-b'): Promise<void> {
      const backend = balancer.backends[key === 'gateway' ? 0 : 1];
      const child = system.children.get(key)!;
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      backend.ready = false;
      const next = await system.spawn!('gateway', {
        key,
        env: key === 'gateway-b' ? { PORT: String(backend.port) } : {},
      });
      expect(next.pid).toBeGreaterThan(0);
      backend.ops = system.opsUrls!().get(key)!;
      await waitFor(() => backend.ready, 90_000);
    }

    it('stores every turn of a replay that keeps feeding while both gateways restart', async () => {
      const turns = (await readCrd3Turns(path.join(CRD3_DIR, 'C1E001.json'))).slice(0, 400);
      const http = httpSink(balancer.url, ingestKey);
      // The feed keeps a steady pace while the gateways restart (one request every 50 ms; its last
      // turns held back until both have restarted, however long that takes), then plays what is
      // left at full speed.
      let restarting = true;
      let sent = 0;
      const paced: LiveSink = {
        ...http,
        async send(transcriptId, utterances) {
          await http.send(transcriptId, utterances);
          sent += utterances.filter((u) => u.is_final).length;
          if (restarting) await sleep(50);
          while (restarting && sent >= turns.length - 10) await sleep(100);
        },
      };
      const replay = replaySession(paced, turns, { owner: owner.id, speed: 1000, name: 'Through restarts' });
      // A refused feed fails the test at `await replay` below, not as an unhandled rejection meanwhile.
      replay.catch(() => undefined);
      await waitFor(() => sent >= 5, 60_000);
      const before = sent;
      await restart('gateway');
      const afterA = sent;
      await restart('gateway-b');
      const afterB = sent;
      restarting = false;
      const result = await replay;

      // The feed went on through each restart, over both gateways.
      expect(afterA).toBeGreaterThan(before);
      expect(afterB).toBeGreaterThan(afterA);
      expect(afterB).toBeLessThan(turns.length);
      expect(balancer.backends.every((b) => b.connections > 0)).toBe(true);
      expect(result.finals).toBe(turns.length);
      const transcript = async () =>
        (await apiCall<Transcript>(balancer.url, 'GET', `/transcripts/${result.transcriptId}`, owner.token))
          .body;
      await waitFor(async () => (await transcript()).status === 'ended', 60_000);
      const t = await transcript();
      expect(t.transcription_error ?? '').toBe('');
      expect(t.content.split('\n')).toHaveLength(turns.length);
    }, 300_000);
  },
);
