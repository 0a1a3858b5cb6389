import type { GuildDirectory } from '../../api/discord-servers.ts';

type Channel = GuildDirectory['channels'][number];

/**
 * A channel chosen by name among the server's channels of one kind. A stored id the bot no
 * longer sees (the channel was deleted) stays selectable, so that a save does not drop it unseen.
 */
export function ChannelSelect(props: {
  id?: string;
  channels: Channel[];
  value: string;
  /** The option for no channel ("" value), when a channel is optional. */
  none: string;
  onChange: (id: string) => void;
}) {
  const { channels, value, none, onChange } = props;
  const known = value === '' || channels.some((c) => c.id === value);
  return (
    <select id={props.id} className="text-input" value={value} onChange={(e) => onChange(e.target.value)}>
      <option value="">{none}</option>
      {channels.map((c) => (
        <option key={c.id} value={c.id}>
          {c.kind === 'text' ? `#${c.name}` : c.name}
        </option>
      ))}
      {!known && <option value={value}>Unknown channel ({value})</option>}
    </select>
  );
}

/** The roles that may start recordings, ticked among the server's roles; none ticked: anyone. */
export function RoleChecks(props: {
  roles: GuildDirectory['roles'];
  value: string[];
  onChange: (ids: string[]) => void;
}) {
  const { roles, value, onChange } = props;
  const unknown = value.filter((id) => !roles.some((r) => r.id === id));
  const all = [...roles, ...unknown.map((id) => ({ id, name: `Unknown role (${id})` }))];
  const toggle = (id: string, on: boolean) => onChange(on ? [...value, id] : value.filter((v) => v !== id));
  return (
    <fieldset className="form-field role-checks">
      <legend className="field-label">Roles that may start recordings</legend>
      {all.length === 0 && <p className="field-hint">The server has no roles to choose from.</p>}
      {all.map((r) => (
        <label key={r.id} className="role-check">
          <input
            type="checkbox"
            checked={value.includes(r.id)}
            onChange={(e) => toggle(r.id, e.target.checked)}
          />
          {r.name}
        </label>
      ))}
      <p className="field-hint">None ticked: anyone with a Chronicler account (Manage Server always may).</p>
    </fieldset>
  );
}
