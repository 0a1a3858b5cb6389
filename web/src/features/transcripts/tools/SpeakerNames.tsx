import { CHARACTER_NAME_MAX } from '@chronicler/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import toast from 'react-hot-toast';
import { errorDetail } from '../../../api/http.ts';
import { getSpeakers, putSpeakers, type SessionSpeakers } from '../../../api/transcript-tools.ts';
import { queryKeys } from '../../../app/query-client.ts';
import { ChevronDownIcon } from '../../../components/icons.tsx';
import { toolKeys } from './use-transcript-tools.ts';
import './transcript-tools.css';

/** The two inputs of a speaker's row. */
const FIELDS = [
  { field: 'name', label: 'Name for', placeholder: 'Display name' },
  { field: 'character', label: 'Character of', placeholder: 'Character (optional)' },
] as const;

type NameMap = Array<{ label: string; name: string; character: string }>;

const named = (data: SessionSpeakers): NameMap =>
  data.speakers.filter((s) => s.name).map(({ label, name, character }) => ({ label, name, character }));

/**
 * 'Speaker names': a display name (and optionally a character) for each speaker label of the
 * session, shown on every line, in exports and to the AI; the stored labels never change.
 * Who Is Who suggestions apply with one click; every save can be undone from its toast.
 */
export function SpeakerNames({ sessionId }: { sessionId: string }) {
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [drafts, setDrafts] = useState<Record<string, { name: string; character: string }>>({});
  const speakers = useQuery({
    queryKey: toolKeys.speakers(sessionId),
    queryFn: () => getSpeakers(sessionId),
  });

  const save = useMutation({
    mutationFn: (v: { map: NameMap; undo?: NameMap }) => putSpeakers(sessionId, v.map),
    onSuccess: (data, v) => {
      queryClient.setQueryData(toolKeys.speakers(sessionId), data);
      void queryClient.invalidateQueries({ queryKey: queryKeys.transcript(sessionId), exact: true });
      void queryClient.invalidateQueries({ queryKey: toolKeys.spotlight(sessionId) });
      setDrafts({});
      const undo = v.undo;
      if (!undo) {
        toast.success('Speaker names restored');
        return;
      }
      toast.success(
        (t) => (
          <span className="speaker-toast">
            Speaker names saved
            <button
              type="button"
              className="link-button"
              onClick={() => {
                toast.dismiss(t.id);
                save.mutate({ map: undo });
              }}
            >
              Undo
            </button>
          </span>
        ),
        { duration: 8000 },
      );
    },
    onError: (cause) => {
      console.error('Failed to save speaker names', cause);
      toast.error(errorDetail(cause, 'Failed to save speaker names'));
    },
  });

  const data = speakers.data;
  if (!data || data.speakers.length === 0) return null;
  const current = named(data);
  const value = (label: string, field: 'name' | 'character') =>
    drafts[label]?.[field] ?? data.speakers.find((s) => s.label === label)?.[field] ?? '';
  const edit = (label: string, field: 'name' | 'character', text: string) =>
    setDrafts((old) => ({
      ...old,
      [label]: { name: value(label, 'name'), character: value(label, 'character'), [field]: text },
    }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const map = data.speakers
      .map((s) => ({
        label: s.label,
        name: value(s.label, 'name').trim(),
        character: value(s.label, 'character').trim(),
      }))
      .filter((s) => s.name);
    save.mutate({ map, undo: current });
  };
  const applyProposals = () => {
    const map = [
      ...current.filter((c) => !data.proposals.some((p) => p.label === c.label)),
      ...data.proposals,
    ];
    save.mutate({ map, undo: current });
  };
  const dirty = Object.keys(drafts).length > 0;

  return (
    <div className="speaker-names">
      <button
        type="button"
        className="speaker-names-toggle"
        aria-expanded={open}
        aria-controls="speaker-names-body"
        onClick={() => setOpen((v) => !v)}
      >
        <span className={open ? 'speaker-names-chevron is-open' : 'speaker-names-chevron'}>
          <ChevronDownIcon />
        </span>
        Speaker names
        {current.length ? <span className="muted small"> ({current.length} named)</span> : null}
      </button>
      {data.proposals.length ? (
        <p className="speaker-proposals small" role="note">
          Who Is Who suggests: {data.proposals.map((p) => `${p.label} → ${p.name}`).join(', ')}.{' '}
          <button
            type="button"
            className="button button-secondary button-compact"
            disabled={save.isPending}
            onClick={applyProposals}
          >
            Apply suggested names
          </button>
        </p>
      ) : null}
      {open ? (
        <form id="speaker-names-body" className="speaker-names-form" onSubmit={submit}>
          {data.speakers.map((s) => (
            <div key={s.label} className="speaker-name-row">
              <span className="speaker-name-label">
                {s.label}
                <span className="muted small">
                  {' '}
                  · {s.lines} {s.lines === 1 ? 'line' : 'lines'}
                </span>
              </span>
              {FIELDS.map((f) => (
                <input
                  key={f.field}
                  className="text-input"
                  aria-label={`${f.label} ${s.label}`}
                  placeholder={f.placeholder}
                  maxLength={CHARACTER_NAME_MAX}
                  value={value(s.label, f.field)}
                  onChange={(event) => edit(s.label, f.field, event.target.value)}
                />
              ))}
            </div>
          ))}
          <div className="button-row">
            <button
              type="submit"
              className="button button-primary button-compact"
              disabled={!dirty || save.isPending}
            >
              {save.isPending ? 'Saving...' : 'Save names'}
            </button>
            {dirty ? (
              <button
                type="button"
                className="button button-secondary button-compact"
                onClick={() => setDrafts({})}
              >
                Cancel
              </button>
            ) : null}
          </div>
        </form>
      ) : null}
    </div>
  );
}
