import { useQuery } from '@tanstack/react-query';
import { getSessionUsage, type SessionUsage } from '../../api/spotlight.ts';
import { duration } from '../spotlight/spotlight-view.ts';
import '../spotlight/spotlight.css';

/** $0.0688 → '$0.07'; amounts under a cent keep four places, so they do not read as nothing. */
export function usd(n: number): string {
  if (n === 0) return '$0';
  return n < 0.01 ? `$${n.toFixed(4)}` : `$${n.toFixed(2)}`;
}

const plural = (n: number, one: string) => `${n.toLocaleString('en-US')} ${one}${n === 1 ? '' : 's'}`;

/** The line that says what the session cost, and of what. */
export function costParts(u: SessionUsage): { total: string; speech: string; ai: string } {
  const speakers = u.speech.per_speaker.length;
  const speech =
    u.speech.basis === 'none'
      ? 'no speech-to-text'
      : `speech ${duration(u.speech.seconds)}${
          u.speech.basis === 'streams' ? ` over ${plural(speakers, 'speaker stream')}` : ' of recording'
        } ${usd(u.speech.cost_usd)}`;
  const tokens = u.ai.input_tokens + u.ai.output_tokens;
  const ai =
    u.ai.requests === 0
      ? 'no AI requests'
      : `AI ${plural(u.ai.requests, 'request')} (${plural(tokens, 'token')}) ${usd(u.ai.cost_usd)}`;
  return { total: usd(u.total_cost_usd), speech, ai };
}

/** The session page's cost line (its owner only: the route answers 404 to anyone else). */
export function SessionCost({ sessionId }: { sessionId: string }) {
  const query = useQuery({
    queryKey: ['transcripts', 'usage', sessionId],
    queryFn: () => getSessionUsage(sessionId),
  });
  if (!query.data) return null;
  const parts = costParts(query.data);
  return (
    <p className="session-cost muted small" aria-label="What this session cost">
      <strong>Cost {parts.total}</strong> — {parts.speech} · {parts.ai}
    </p>
  );
}
