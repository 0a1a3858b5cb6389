import { useQuery } from '@tanstack/react-query';
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { getGroupSpotlight, type GroupSpotlight } from '../../api/spotlight.ts';
import { duration, percent, sinceLabel, who } from './spotlight-view.ts';
import { ShareBars } from './SpotlightPanel.tsx';

const COLORS = ['#2e3d8a', '#c2410c', '#15803d', '#7c3aed', '#0e7490', '#b45309', '#be185d', '#4d7c0f'];
const axisTick = { fontSize: 12 };

/** Each player's share of the players' talk, session by session (the order of play). */
function TrendChart({ spotlight }: { spotlight: GroupSpotlight }) {
  const data = spotlight.sessions.map((s, i) => ({
    session: s.name,
    ...Object.fromEntries(spotlight.players.map((p) => [who(p), p.per_session[i] ?? 0])),
  }));
  return (
    <div className="spotlight-chart" role="img" aria-label="Each speaker's share of each session">
      <ResponsiveContainer width="100%" height={220}>
        <LineChart data={data} margin={{ top: 8, right: 16, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} />
          <XAxis
            dataKey="session"
            tick={axisTick}
            interval="preserveStartEnd"
            padding={{ left: 48, right: 48 }}
          />
          <YAxis domain={[0, 1]} tickFormatter={(v: number) => percent(v)} tick={axisTick} width={44} />
          <Tooltip formatter={(v) => percent(Number(v))} />
          <Legend wrapperStyle={{ fontSize: 12 }} />
          {spotlight.players.map((p, i) => (
            <Line
              key={p.key}
              type="monotone"
              dataKey={who(p)}
              stroke={COLORS[i % COLORS.length]}
              dot={{ r: 3 }}
              isAnimationActive={false}
            />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

/** The campaign dashboard's spotlight: who has waited longest for a large share comes first. */
export function CampaignSpotlight({ groupId }: { groupId: string }) {
  const query = useQuery({
    queryKey: ['groups', 'spotlight', groupId],
    queryFn: () => getGroupSpotlight(groupId),
  });
  const data = query.data;
  let body;
  if (query.isError) body = <p className="notice notice-error">Failed to load the spotlight.</p>;
  else if (!data) body = <p className="muted">Counting…</p>;
  else if (data.players.length === 0) {
    body = <p className="muted">No session of this campaign names its speakers yet.</p>;
  } else {
    body = (
      <div className="spotlight">
        {data.gm.map((g) => (
          <p key={g.key} className="spotlight-gm">
            <strong>Game master: {who(g)}</strong> — {percent(g.share)} of the talk on average, over{' '}
            {g.sessions} sessions.
          </p>
        ))}
        <ShareBars
          rows={data.players.map((p) => ({ name: who(p), share: p.player_share ?? 0 }))}
          label="Average share of the players' talk"
        />
        {data.sessions.length > 1 ? <TrendChart spotlight={data} /> : null}
        <div className="spotlight-table-wrap">
          <table className="spotlight-table">
            <thead>
              <tr>
                <th scope="col">Player</th>
                <th scope="col" className="spotlight-minor">
                  Sessions
                </th>
                <th scope="col" className="spotlight-minor">
                  Time
                </th>
                <th scope="col" className="spotlight-minor">
                  Lines
                </th>
                <th scope="col">Of the players</th>
                <th scope="col">Last large share</th>
              </tr>
            </thead>
            <tbody>
              {data.players.map((p) => (
                <tr key={p.key}>
                  <th scope="row">{who(p)}</th>
                  <td className="spotlight-minor">{p.sessions}</td>
                  <td className="spotlight-minor">{duration(p.seconds)}</td>
                  <td className="spotlight-minor">{p.lines}</td>
                  <td>{percent(p.player_share)}</td>
                  <td
                    className={
                      p.sessions_since_large_share === null || p.sessions_since_large_share >= 2
                        ? 'spotlight-since-high'
                        : undefined
                    }
                  >
                    {sinceLabel(p.sessions_since_large_share)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p className="muted small">
          A large share: at least an even share of the players' talk in a session.
        </p>
      </div>
    );
  }
  return (
    <section className="card group-section" aria-labelledby="campaign-spotlight-title">
      <h2 id="campaign-spotlight-title" className="card-title">
        Spotlight
      </h2>
      {body}
    </section>
  );
}
