import type {
  AdminAiCostsWeekly,
  AdminAiRequests,
  AdminStats,
  AdminTranscriptionHours,
  AdminUserMetrics,
  TranscriptListItem,
} from '@chronicler/contracts';
import { createStreamGate } from '@chronicler/speech';
import { busSink, readCrd3Turns, replaySession, type LiveSink } from '@chronicler/voice-bot/replay';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCall } from '../support/api.ts';
import { localSignIn } from '../support/auth.ts';
import { crd3Transcript, CRD3_DIR } from '../support/crd3.ts';
import { nodeEntry, repoRoot, startSystem, testMode, type TestSystem, waitFor } from '../support/system.ts';

interface User {
  token: string;
  id: string;
  isAdmin: boolean;
}

const ADMIN_PATHS = [
  '/admin/stats',
  '/admin/user-metrics?start=2026-01-01&end=2026-01-07',
  '/admin/ai-requests?limit=5',
  '/admin/transcription-hours-per-day',
  '/admin/ai-costs-weekly',
  `/admin/transcripts/${randomUUID()}/llm-summary`,
];

const round4 = (v: number): number => Math.round((v + Number.EPSILON) * 10_000) / 10_000;
const today = (): string => new Date().toISOString().slice(0, 10);

/** Runs `pnpm admin:grant` as an operator would (the same entry, without pnpm). */
function adminGrant(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeEntry('services/auth/src/cli/admin-grant.ts'), ...args], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

describe(`admin dashboard (${testMode} mode)`, () => {
  let system: TestSystem;
  let admin: User;
  let mallory: User;
  let alice: User;

  const signIn = async (name: string): Promise<User> => {
    const r = await localSignIn(system.url, name);
    return { token: r.cookie, id: r.body.user?.id ?? '', isAdmin: r.body.user?.is_admin === true };
  };
  const api = <T = Record<string, unknown>>(method: string, p: string, token: string, body?: unknown) =>
    apiCall<T>(system.url, method, p, token, body);
  const get = async <T>(p: string, user = admin): Promise<T> => {
    const res = await api<T>('GET', p, user.token);
    expect(res.status, `${p}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };

  beforeAll(async () => {
    system = await startSystem({
      env: {
        AUTH_LOCAL_ENABLED: 'true',
        // Case-insensitive, like local names.
        ADMIN_LOCAL_USERS: 'Root-Admin, someone-else',
        // Every request checks its session again, so a grant shows at once.
        SESSION_CACHE_TTL_MS: '0',
      },
    });
    admin = await signIn('root-admin');
    mallory = await signIn('mallory');
    alice = await signIn('alice');
  }, 120_000);
  afterAll(async () => {
    await system?.stop();
  });

  it('makes a local account listed in ADMIN_LOCAL_USERS an admin, and no one else', () => {
    expect(admin.isAdmin).toBe(true);
    expect(mallory.isAdmin).toBe(false);
    expect(alice.isAdmin).toBe(false);
  });

  it('answers 403 to a signed-in non-admin and 401 to no one on every admin call', async () => {
    for (const p of ADMIN_PATHS) {
      const res = await api('GET', p, mallory.token);
      expect(res.status, p).toBe(403);
      expect(res.body).toEqual({ detail: 'Admin access required' });
      expect((await fetch(`${system.url}/api${p}`)).status, p).toBe(401);
    }
  });

  it('refuses bad dates, over-long ranges and unbounded limits', async () => {
    const bad = async (p: string) => {
      const res = await api<{ detail: string }>('GET', p, admin.token);
      expect(res.status, p).toBe(400);
      return res.body.detail;
    };
    expect(await bad('/admin/user-metrics?start=2026-02-30&end=2026-03-01')).toBe(
      'Invalid start date. Use YYYY-MM-DD.',
    );
    expect(await bad('/admin/user-metrics?start=2024-01-01&end=2026-01-01')).toBe(
      'Date range cannot exceed 366 days.',
    );
    await bad('/admin/user-metrics?start=2026-01-01');
    await bad('/admin/ai-requests?limit=0');
    await bad('/admin/ai-requests?limit=101');
    expect((await get<AdminAiRequests>('/admin/ai-requests')).ai_requests.length).toBeLessThanOrEqual(5);
  });

  it('shows the real figures after manual sessions, AI calls and a live session, which is active only while it runs', async () => {
    const before = await get<AdminStats>('/admin/stats');
    expect(before).toMatchObject({
      status: 'success',
      total_users: 3,
      total_transcripts: 0,
      active_sessions_count: 0,
      active_sessions: [],
      deepgram_ws_count: 0,
      assemblyai_ws_count: 0,
    });
    expect(before.sessions_per_day_last_7).toHaveLength(7);
    expect(before.sessions_per_day_last_7.every((d) => d.count === 0)).toBe(true);
    expect(before.sessions_per_day_last_7.at(-1)!.date).toBe(today());

    // Two manual sessions; each gets its summary from the offline engine (an AI request).
    const transcript = crd3Transcript('C1E001', { timed: true, maxChars: 4000 });
    const manual: TranscriptListItem[] = [];
    for (const name of ['Arrival', 'Departure']) {
      const res = await api<TranscriptListItem>('POST', '/transcripts/manual', alice.token, {
        name,
        session_date: new Date().toISOString(),
        transcript,
      });
      expect(res.status).toBe(200);
      manual.push(res.body);
    }
    const ledger = () =>
      system.platform!.db.query<{
        input_tokens: number;
        output_tokens: number;
        user_id: string;
        estimated_cost_usd: number;
      }>('select input_tokens, output_tokens, user_id, estimated_cost_usd from admin_stats.ai_requests');
    await waitFor(async () => (await ledger()).length >= 2, 30_000);

    // A live session, held open before its end until the dashboard has seen it running.
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    const inner = busSink(system.platform!.bus);
    const sink: LiveSink = {
      start: (s) => inner.start(s),
      send: (id, u) => inner.send(id, u),
      end: async (id, e) => {
        await released;
        return inner.end(id, e);
      },
      close: () => inner.close(),
    };
    const turns = (await readCrd3Turns(path.join(CRD3_DIR, 'C1E001.json'))).slice(0, 4);
    let started!: (id: string) => void;
    const liveId = new Promise<string>((r) => (started = r));
    const done = replaySession(sink, turns, { owner: alice.id, speed: 200, onStart: started });
    const transcriptId = await liveId;

    // A live speech stream open somewhere in the deployment (the same gate the bot takes).
    const lease = await createStreamGate(system.platform!.coord, {
      deepgram: 50,
      assemblyai: 100,
      openai: 100,
    }).acquire('deepgram');
    try {
      let during!: AdminStats;
      await waitFor(async () => {
        during = await get<AdminStats>('/admin/stats');
        return during.active_sessions.some((s) => s.transcript_id === transcriptId);
      }, 20_000);
      expect(during.active_sessions_count).toBe(1);
      const row = during.active_sessions[0]!;
      expect(row).toMatchObject({
        session_id: transcriptId,
        transcript_id: transcriptId,
        owner_id: alice.id,
      });
      expect(row.duration_seconds).toBeGreaterThanOrEqual(0);
      expect(Math.abs(Date.parse(row.start_time) - Date.now())).toBeLessThan(60_000);
      expect(during.deepgram_ws_count).toBe(1);
      expect(during.assemblyai_ws_count).toBe(0);
    } finally {
      await lease?.release();
      release();
    }
    await done;
    await waitFor(async () => (await get<AdminStats>('/admin/stats')).active_sessions_count === 0, 20_000);

    // Everything the session and the summaries recorded has reached the ledger.
    const usage = () =>
      system.platform!.db.query<{ seconds: number }>(
        'select seconds from admin_stats.transcription_usage where transcript_id = $1',
        [transcriptId],
      );
    await waitFor(async () => (await usage()).length === 1, 20_000);
    await waitFor(async () => {
      const t = await api<TranscriptListItem>('GET', `/transcripts/${transcriptId}`, alice.token);
      return t.body.summary_status === 'done';
    }, 30_000);
    await waitFor(async () => (await ledger()).length >= 3, 20_000);

    const after = await get<AdminStats>('/admin/stats');
    expect(after).toMatchObject({
      total_users: 3,
      total_transcripts: 3,
      active_sessions_count: 0,
      active_sessions: [],
      deepgram_ws_count: 0,
    });
    expect(after.sessions_per_day_last_7).toHaveLength(7);
    expect(after.sessions_per_day_last_7.at(-1)).toEqual({ date: today(), count: 3 });
    expect(after.sessions_per_day_last_7.slice(0, 6).every((d) => d.count === 0)).toBe(true);

    const rows = await ledger();
    const costs = await get<AdminAiCostsWeekly>('/admin/ai-costs-weekly');
    expect(costs.days).toHaveLength(7);
    const input = rows.reduce((n, r) => n + Number(r.input_tokens), 0);
    const output = rows.reduce((n, r) => n + Number(r.output_tokens), 0);
    expect(input).toBeGreaterThan(0);
    expect(costs.days.at(-1)).toEqual({
      date: today(),
      total_input_tokens: input,
      total_output_tokens: output,
      // The chart's cost is what the rows recorded: the offline fallback answered here, at $0.
      total_cost_usd: round4(rows.reduce((n, r) => n + Number(r.estimated_cost_usd), 0)),
    });
    expect(costs.days.at(-1)!.total_cost_usd).toBe(0);
    expect(costs.days.slice(0, 6).every((d) => d.total_input_tokens === 0 && d.total_cost_usd === 0)).toBe(
      true,
    );

    const recent = await get<AdminAiRequests>('/admin/ai-requests?limit=5');
    expect(recent.ai_requests).toHaveLength(Math.min(5, rows.length));
    for (const r of recent.ai_requests) {
      expect(r).toMatchObject({ user_id: alice.id, username: 'alice', success: true });
      expect(r._id).toBeTruthy();
    }
    const times = recent.ai_requests.map((r) => Date.parse(r.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect((await get<AdminAiRequests>('/admin/ai-requests?limit=1')).ai_requests).toHaveLength(1);

    const seconds = (await usage())[0]!.seconds;
    const hours = await get<AdminTranscriptionHours>('/admin/transcription-hours-per-day');
    expect(hours.transcription_hours_per_day).toHaveLength(7);
    expect(hours.transcription_hours_per_day.at(-1)).toMatchObject({
      date: today(),
      transcription_hours: round4(Number(seconds) / 3600),
    });

    const metrics = await get<AdminUserMetrics>(`/admin/user-metrics?start=${today()}&end=${today()}`);
    expect(metrics).toMatchObject({ status: 'success', start: today(), end: today(), active_users: 1 });
    expect(metrics.ai_requests).toBe(rows.length);
    expect(metrics.users).toEqual([
      expect.objectContaining({ user_id: alice.id, ai_requests: rows.length, input_tokens: input }),
    ]);

    // A deleted session leaves the total.
    expect((await api('DELETE', `/transcripts/${manual[0]!.id}`, alice.token)).status).toBeLessThan(300);
    expect((await get<AdminStats>('/admin/stats')).total_transcripts).toBe(2);
  }, 120_000);

  it('pnpm admin:grant makes someone admin on a running system, or says why it cannot', async () => {
    if (testMode === 'cluster') {
      const env = { ...process.env, NATS_URL: system.env.NATS_URL, BUS_PREFIX: system.env.BUS_PREFIX };
      const granted = await adminGrant(['mallory'], env);
      expect(granted, granted.err).toMatchObject({ code: 0 });
      expect(granted.out).toContain(`mallory (${mallory.id}) is now an admin`);
      // Mallory's existing session has the right now (no cache here), no new sign-in needed.
      expect((await api('GET', '/admin/stats', mallory.token)).status).toBe(200);
      const revoked = await adminGrant([mallory.id, '--revoke'], env);
      expect(revoked.code).toBe(0);
      expect((await api('GET', '/admin/stats', mallory.token)).status).toBe(403);
      // A listed admin keeps the right from the list.
      const listed = await adminGrant(['ROOT-ADMIN', '--revoke'], env);
      expect(listed.out).toContain('still an admin through');
      const unknown = await adminGrant(['nobody-here'], env);
      expect(unknown.code).toBe(1);
      expect(unknown.err).toContain('No user is called or has the id "nobody-here"');
    } else {
      const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: system.env.DATA_DIR };
      delete env.NATS_URL;
      delete env.DATABASE_URL;
      const refused = await adminGrant(['mallory'], env);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain('is in use: Chronicler is running');
      expect(refused.err).toContain('ADMIN_LOCAL_USERS=mallory');
      expect((await api('GET', '/admin/stats', mallory.token)).status).toBe(403);
    }
    const usage = await adminGrant([], process.env);
    expect(usage.code).toBe(2);
    expect(usage.err).toContain('Usage: pnpm admin:grant <username or user id> [--revoke]');
  }, 180_000);
});
