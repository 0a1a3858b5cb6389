import type { AutoRecordRule } from '@chronicler/contracts';
import type { ReactNode } from 'react';
import type { GuildDirectory } from '../../api/discord-servers.ts';
import type { GroupSummaryItem } from '../../api/types.ts';
import { ChannelSelect } from './DirectoryFields.tsx';

const NEW_RULE: AutoRecordRule = {
  channel_id: '',
  min_members: 3,
  group_id: null,
  owner_discord_id: null,
  from: null,
  to: null,
  timezone: 'UTC',
  empty_minutes: 3,
};

/** The auto-record rules of a server: one card per voice channel watched. */
export function AutoRecordRules(props: {
  rules: AutoRecordRule[];
  groups: GroupSummaryItem[];
  /** The server's voice channels, once the bot has described it; null: ids typed by hand. */
  voiceChannels: GuildDirectory['channels'] | null;
  onChange: (rules: AutoRecordRule[]) => void;
}) {
  const { rules, groups, voiceChannels, onChange } = props;
  const edit = (i: number, change: Partial<AutoRecordRule>) =>
    onChange(rules.map((r, j) => (j === i ? { ...r, ...change } : r)));
  const field = (label: string, input: ReactNode) => (
    <label className="form-field">
      <span className="field-label">{label}</span>
      {input}
    </label>
  );
  return (
    <fieldset className="form-field">
      <legend className="field-label">Auto-record</legend>
      {rules.length === 0 && <p className="field-hint">No rule: recordings start with /start only.</p>}
      {rules.map((r, i) => (
        <div className="rule-card" key={i} role="group" aria-label={`Rule ${i + 1}`}>
          {voiceChannels
            ? field(
                'Voice channel',
                <ChannelSelect
                  channels={voiceChannels}
                  value={r.channel_id}
                  none="Choose a channel"
                  onChange={(channel_id) => edit(i, { channel_id })}
                />,
              )
            : field(
                'Voice channel id',
                <input
                  className="text-input"
                  inputMode="numeric"
                  value={r.channel_id}
                  onChange={(e) => edit(i, { channel_id: e.target.value.trim() })}
                />,
              )}
          {field(
            'At least members',
            <input
              className="text-input"
              type="number"
              min={1}
              max={99}
              value={r.min_members}
              onChange={(e) => edit(i, { min_members: Number(e.target.value) })}
            />,
          )}
          {field(
            'From (HH:MM)',
            <input
              className="text-input"
              type="time"
              value={r.from ?? ''}
              onChange={(e) => edit(i, { from: e.target.value || null })}
            />,
          )}
          {field(
            'Until (HH:MM)',
            <input
              className="text-input"
              type="time"
              value={r.to ?? ''}
              onChange={(e) => edit(i, { to: e.target.value || null })}
            />,
          )}
          {field(
            'Time zone',
            <input
              className="text-input"
              value={r.timezone}
              onChange={(e) => edit(i, { timezone: e.target.value.trim() })}
            />,
          )}
          {field(
            'Stop after empty (minutes)',
            <input
              className="text-input"
              type="number"
              min={1}
              max={60}
              value={r.empty_minutes}
              onChange={(e) => edit(i, { empty_minutes: Number(e.target.value) })}
            />,
          )}
          {field(
            'Group',
            <select
              className="text-input"
              value={r.group_id ?? ''}
              onChange={(e) => edit(i, { group_id: e.target.value || null })}
            >
              <option value="">None</option>
              {groups.map((g) => (
                <option key={g.id} value={g.id}>
                  {g.name}
                </option>
              ))}
            </select>,
          )}
          <button
            type="button"
            className="button button-secondary"
            onClick={() => onChange(rules.filter((_, j) => j !== i))}
          >
            Remove rule
          </button>
        </div>
      ))}
      <button
        type="button"
        className="button button-secondary"
        onClick={() => onChange([...rules, NEW_RULE])}
      >
        Add a rule
      </button>
    </fieldset>
  );
}
