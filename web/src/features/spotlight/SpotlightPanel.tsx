import { Bar, BarChart, CartesianGrid, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { SessionSpotlight, SpeakerSpotlight } from '../../api/spotlight.ts';
import { duration, lines, percent, who } from './spotlight-view.ts';
import './spotlight.css';

const BAR_HEIGHT = 34;
const axisTick = { fontSize: 12 };

/** Horizontal bars of the players' shares of the players' talk (the GM is shown apart). */
export function ShareBars({ rows, label }: { rows: { name: string; share: number }[]; label: string }) {
  return (
    <div className="spotlight-chart" role="img" aria-label={label}>
      <ResponsiveContainer width="100%" height={Math.max(80, rows.length * BAR_HEIGHT + 32)}>
        <BarChart data={rows} layout="vertical" margin={{ top: 4, right: 24, bottom: 4, left: 4 }}>
          <CartesianGrid strokeDasharray="3 3" horizontal={false} />
          <XAxis
            type="number"
            domain={[0, 1]}
            tickFormatter={(v: number) => percent(v)}
            tick={axisTick}
            ticks={[0, 0.25, 0.5, 0.75, 1]}
          />
          <YAxis type="category" dataKey="name" tick={axisTick} width={120} />
          <Tooltip formatter={(v) => [percent(Number(v)), 'Share']} />
          <Bar dataKey="share" name="Share" fill="#2e3d8a" radius={[0, 4, 4, 0]} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

function SpeakerRow({ s }: { s: SpeakerSpotlight }) {
  return (
    <tr>
      <th scope="row">{who(s)}</th>
      <td>{duration(s.seconds)}</td>
      <td className="spotlight-minor">{s.lines}</td>
      <td className="spotlight-minor">{percent(s.share)}</td>
      <td>{s.role === 'gm' ? '—' : percent(s.player_share)}</td>
      <td>
        {s.longest_silence_seconds === null
          ? lines(s.longest_silence_lines)
          : duration(s.longest_silence_seconds)}
      </td>
    </tr>
  );
}

const GM_BY: Record<string, string> = {
  name: 'named so',
  'who-is-who': 'the one who talks most without a character in Who Is Who',
  'most-talk': 'the one who talks most',
};

/** One session's spotlight: the game master apart, the players' shares as bars, then the figures. */
export function SpotlightPanel({ spotlight, live = false }: { spotlight: SessionSpotlight; live?: boolean }) {
  const { gm, players } = spotlight;
  const rows = players.map((p) => ({ name: who(p), share: p.player_share ?? 0 }));
  return (
    <div className="spotlight" data-live={live ? 'true' : undefined}>
      {spotlight.note ? <p className="muted small spotlight-note">{spotlight.note}</p> : null}
      {gm ? (
        <p className="spotlight-gm">
          <strong>Game master: {who(gm)}</strong> — {percent(gm.share)} of the talk
          {gm.seconds !== null ? ` (${duration(gm.seconds)})` : ''}, {lines(gm.lines)}.{' '}
          <span className="muted small">
            Known as the game master: {GM_BY[spotlight.gm_by ?? ''] ?? 'named so'}.
          </span>
        </p>
      ) : players.length > 0 ? (
        <p className="muted small">
          No game master is marked: name a speaker GM, or give the players their characters in Who Is Who.
        </p>
      ) : null}
      {rows.length > 0 ? (
        <>
          <ShareBars rows={rows} label={`${live ? 'Running shares' : 'Shares'} of the players' talk`} />
          <div className="spotlight-table-wrap">
            <table className="spotlight-table">
              <thead>
                <tr>
                  <th scope="col">Speaker</th>
                  <th scope="col">Time</th>
                  <th scope="col" className="spotlight-minor">
                    Lines
                  </th>
                  <th scope="col" className="spotlight-minor">
                    Of the session
                  </th>
                  <th scope="col">Of the players</th>
                  <th scope="col">Longest silence</th>
                </tr>
              </thead>
              <tbody>
                {gm ? <SpeakerRow s={gm} /> : null}
                {players.map((p) => (
                  <SpeakerRow key={p.key} s={p} />
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </div>
  );
}
