import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import toast from 'react-hot-toast';
import {
  getServerDirectory,
  getServerSettings,
  putServerSettings,
  type ManagedGuild,
  type ServerSettings,
  type ServerSettingsChange,
} from '../../api/discord-servers.ts';
import { errorDetail } from '../../api/http.ts';
import { listGroups } from '../../api/lists.ts';
import { queryKeys } from '../../app/query-client.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { AutoRecordRules } from './AutoRecordRules.tsx';
import { ChannelSelect, RoleChecks } from './DirectoryFields.tsx';

type Draft = Omit<ServerSettings, 'guild_id' | 'updated_at'>;

const settingsKey = (guildId: string) => ['discord', 'servers', guildId, 'settings'] as const;
const ids = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);

/** The voice bot's settings of one server, edited as a whole and saved with one PUT. */
export function ServerSettingsForm({ guild }: { guild: ManagedGuild }) {
  const queryClient = useQueryClient();
  const query = useQuery({ queryKey: settingsKey(guild.id), queryFn: () => getServerSettings(guild.id) });
  const groups = useQuery({ queryKey: queryKeys.groups, queryFn: listGroups });
  const directory = useQuery({
    queryKey: ['discord', 'servers', guild.id, 'directory'],
    queryFn: () => getServerDirectory(guild.id),
  });
  // Channels and roles by name once the bot has described the server; ids typed otherwise.
  const dir = directory.data?.updated_at ? directory.data : null;
  const [draft, setDraft] = useState<Draft | null>(null);
  const [roles, setRoles] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const f = { mode: useId(), channel: useId(), group: useId(), language: useId(), roles: useId() };
  const save = useMutation({
    mutationFn: (change: ServerSettingsChange) => putServerSettings(guild.id, change),
    onSuccess: (saved) => {
      queryClient.setQueryData(settingsKey(guild.id), saved);
      setDraft(null);
      setRoles(null);
      setError(null);
      toast.success('Server settings saved');
    },
    onError: (err) => setError(errorDetail(err, 'Failed to save the server settings')),
  });
  if (query.isPending || directory.isPending) return <Spinner label="Loading the settings" />;
  if (query.isError)
    return (
      <p className="notice notice-error" role="alert">
        {errorDetail(query.error, 'Failed to load the server settings')}
      </p>
    );
  const stored = query.data;
  const d: Draft = draft ?? stored;
  const set = (change: Partial<Draft>) => {
    setDraft({ ...d, ...change });
    setError(null);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { default_group_id, consent_mode, announcement_channel_id, language, auto_record } = d;
    // A rule added and left without its channel: said in words here, not as the schema's path.
    const unset = auto_record.findIndex((r) => !r.channel_id.trim());
    if (unset >= 0) {
      setError(`${dir ? 'Choose the voice channel' : 'Enter the voice channel id'} of rule ${unset + 1}.`);
      return;
    }
    save.mutate({
      default_group_id,
      consent_mode,
      announcement_channel_id: announcement_channel_id?.trim() || null,
      language: language?.trim() || null,
      starter_roles: roles === null ? d.starter_roles : ids(roles),
      auto_record,
    });
  };
  return (
    <form
      className="card server-settings-form"
      onSubmit={submit}
      noValidate
      aria-label={`Settings of ${guild.name}`}
    >
      <h2 className="card-title">{guild.name}</h2>
      {directory.isSuccess && !dir && (
        <p className="field-hint">
          The Chronicler bot has not seen this server&apos;s channels yet: add the bot to the server to pick
          channels and roles by name. Until then, enter their ids.
        </p>
      )}
      <div className="form-field">
        <label className="field-label" htmlFor={f.mode}>
          Who is recorded
        </label>
        <select
          id={f.mode}
          className="text-input"
          value={d.consent_mode}
          onChange={(e) => set({ consent_mode: e.target.value as Draft['consent_mode'] })}
        >
          <option value="announce">Everyone, announced</option>
          <option value="opt_in">Only members who opt in</option>
        </select>
        {/* The choices stay short enough for a phone's select; what each means is said here. */}
        <p className="field-hint">
          {d.consent_mode === 'opt_in'
            ? 'Only members who press Record me are recorded.'
            : 'Everyone in the channel is recorded once the bot announces it; members can opt out.'}
        </p>
      </div>
      <div className="form-field">
        <label className="field-label" htmlFor={f.channel}>
          {dir ? 'Announcement channel' : 'Announcement channel id'}
        </label>
        {dir ? (
          <ChannelSelect
            id={f.channel}
            channels={dir.channels.filter((c) => c.kind === 'text')}
            value={d.announcement_channel_id ?? ''}
            none="Where /start runs"
            onChange={(id) => set({ announcement_channel_id: id || null })}
          />
        ) : (
          <input
            id={f.channel}
            className="text-input"
            inputMode="numeric"
            value={d.announcement_channel_id ?? ''}
            placeholder="Where /start runs"
            onChange={(e) => set({ announcement_channel_id: e.target.value })}
          />
        )}
      </div>
      <div className="form-field">
        <label className="field-label" htmlFor={f.group}>
          Default group
        </label>
        <select
          id={f.group}
          className="text-input"
          value={d.default_group_id ?? ''}
          onChange={(e) => set({ default_group_id: e.target.value || null })}
        >
          <option value="">None</option>
          {(groups.data ?? []).map((g) => (
            <option key={g.id} value={g.id}>
              {g.name}
            </option>
          ))}
        </select>
      </div>
      <div className="form-field">
        <label className="field-label" htmlFor={f.language}>
          Transcription language
        </label>
        <input
          id={f.language}
          className="text-input"
          value={d.language ?? ''}
          placeholder="e.g. en, de, fr"
          aria-describedby={`${f.language}-hint`}
          onChange={(e) => set({ language: e.target.value })}
        />
        <p id={`${f.language}-hint`} className="field-hint">
          Empty: the speech-to-text provider decides.
        </p>
      </div>
      {dir ? (
        <RoleChecks
          roles={dir.roles}
          value={d.starter_roles}
          onChange={(starter_roles) => set({ starter_roles })}
        />
      ) : (
        <div className="form-field">
          <label className="field-label" htmlFor={f.roles}>
            Roles that may start recordings (ids)
          </label>
          <input
            id={f.roles}
            className="text-input"
            value={roles ?? d.starter_roles.join(' ')}
            placeholder="Anyone with a Chronicler account"
            onChange={(e) => {
              setRoles(e.target.value);
              setError(null);
            }}
          />
        </div>
      )}
      <AutoRecordRules
        rules={d.auto_record}
        groups={groups.data ?? []}
        voiceChannels={dir ? dir.channels.filter((c) => c.kind === 'voice') : null}
        onChange={(auto_record) => set({ auto_record })}
      />
      {error && (
        <p className="notice notice-error form-error" role="alert">
          {error}
        </p>
      )}
      <div className="button-row form-actions">
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {save.isPending ? 'Saving...' : 'Save settings'}
        </button>
      </div>
    </form>
  );
}
