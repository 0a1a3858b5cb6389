import type { RpcRequest, SessionUsage, sessionUsageRpc } from '@chronicler/contracts';
import type { SessionUsageRows, UsageStore } from '../db/store.ts';

const cents = (n: number) => Math.round(n * 10_000) / 10_000;

/** What a session cost from its ledger rows, speech at `pricePerMinuteUsd`. */
function sessionCost(transcriptId: string, rows: SessionUsageRows, pricePerMinuteUsd: number): SessionUsage {
  // A live session's provider streams are what is billed; an upload's recording otherwise.
  const streamed = rows.streams.length > 0;
  const recorded = rows.transcribed.filter((t) => t.source === 'audio');
  const seconds = streamed
    ? rows.streams.reduce((n, s) => n + s.seconds, 0)
    : recorded.reduce((n, t) => n + t.seconds, 0);
  const perSpeaker = new Map<string, { speaker_key: string; streams: number; seconds: number }>();
  for (const s of rows.streams) {
    const p = perSpeaker.get(s.speaker_key) ?? { speaker_key: s.speaker_key, streams: 0, seconds: 0 };
    p.streams += s.streams;
    p.seconds += s.seconds;
    perSpeaker.set(s.speaker_key, p);
  }
  const providers = [...new Set((streamed ? rows.streams : recorded).map((r) => r.provider).filter(Boolean))];
  const speechCost = cents((seconds / 60) * pricePerMinuteUsd);
  const ai = rows.ai.reduce(
    (t, r) => ({
      requests: t.requests + r.requests,
      input_tokens: t.input_tokens + r.input_tokens,
      output_tokens: t.output_tokens + r.output_tokens,
      cost_usd: t.cost_usd + r.cost_usd,
    }),
    { requests: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 },
  );
  return {
    transcript_id: transcriptId,
    speech: {
      basis: streamed ? 'streams' : seconds > 0 ? 'recording' : 'none',
      seconds: Math.round(seconds * 10) / 10,
      providers,
      per_speaker: [...perSpeaker.values()].map((p) => ({ ...p, seconds: Math.round(p.seconds * 10) / 10 })),
      price_per_minute_usd: pricePerMinuteUsd,
      cost_usd: speechCost,
    },
    ai: {
      ...ai,
      cost_usd: cents(ai.cost_usd),
      by_type: rows.ai.map((r) => ({ ...r, cost_usd: cents(r.cost_usd) })),
    },
    total_cost_usd: cents(speechCost + ai.cost_usd),
  };
}

/** svc.admin-stats.session-usage */
export const sessionUsage =
  (store: UsageStore, pricePerMinuteUsd: number) =>
  async (req: RpcRequest<typeof sessionUsageRpc>): Promise<SessionUsage> =>
    sessionCost(
      req.transcript_id,
      await store.sessionUsage(req.owner_id, req.transcript_id),
      pricePerMinuteUsd,
    );
