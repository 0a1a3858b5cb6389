import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router-dom';
import type { TranscriptDetail } from '../../api/types.ts';
import { AudioField, UploadProgress } from './AudioField.tsx';
import { SessionBasicFields, TranscriptField } from './SessionFields.tsx';
import {
  dateInputValue,
  sessionDateIso,
  sessionFormError,
  type SessionFormValues,
} from './session-form-rules.ts';
import { useSessionSave } from './use-session-save.ts';
import './sessions.css';

type SessionFormProps = { mode: 'create'; groupId?: string } | { mode: 'edit'; session: TranscriptDetail };

/** The session form in both modes: create (with optional group and audio) and edit. */
export function SessionForm(props: SessionFormProps) {
  const navigate = useNavigate();
  const editing = props.mode === 'edit' ? props.session : null;
  const originalTranscript = editing?.content ?? '';
  const originalDate = dateInputValue(editing?.session_timestamp);

  const [values, setValues] = useState<SessionFormValues>(() => ({
    name: editing?.name ?? '',
    date: originalDate,
    summary: editing?.summary ?? '',
    transcript: originalTranscript,
    audio: null,
  }));
  // Edit mode keeps a long transcript out of the way until asked for; an empty one is open.
  const [transcriptOpen, setTranscriptOpen] = useState(() => !originalTranscript.trim());
  const save = useSessionSave({ groupId: props.mode === 'create' ? props.groupId : undefined, editing });
  const { submitting, formError } = save;

  const set = <K extends keyof SessionFormValues>(key: K, value: SessionFormValues[K]) =>
    setValues((old) => ({ ...old, [key]: value }));
  const transcriptChanged = editing !== null && transcriptOpen && values.transcript !== originalTranscript;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (submitting) return;
    const problem = sessionFormError(values, props.mode, transcriptChanged);
    save.setFormError(problem);
    if (problem) return;
    if (!editing) {
      save.create(values);
      return;
    }
    save.update({
      name: values.name.trim(),
      summary: values.summary.trim(),
      ...(values.date !== originalDate ? { session_date: sessionDateIso(values.date) } : {}),
      ...(transcriptChanged ? { transcript: values.transcript } : {}),
    });
  };

  const chooseAudio = (file: File | null) => {
    // A recording replaces any typed transcript: the server writes the transcript itself.
    setValues((old) => ({ ...old, audio: file, transcript: file ? '' : old.transcript }));
  };

  return (
    <form className="card session-form" onSubmit={submit} noValidate aria-busy={submitting || undefined}>
      <SessionBasicFields values={values} set={set} disabled={submitting} />

      {values.audio ? null : (
        <TranscriptField
          value={values.transcript}
          onChange={(value) => set('transcript', value)}
          open={transcriptOpen}
          onOpen={() => setTranscriptOpen(true)}
          originalTranscript={originalTranscript}
          disabled={submitting}
        />
      )}

      {props.mode === 'create' ? (
        <AudioField audio={values.audio} onChange={chooseAudio} disabled={submitting} />
      ) : null}

      {save.progress !== null ? <UploadProgress percent={save.progress} /> : null}

      {formError ? (
        <p className="notice notice-error form-error" role="alert">
          {formError}
        </p>
      ) : null}

      <div className="button-row form-actions">
        <button type="button" className="button button-secondary" onClick={() => void navigate(-1)}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={submitting}>
          {editing
            ? submitting
              ? 'Saving...'
              : 'Save Changes'
            : submitting
              ? 'Creating...'
              : 'Create Session'}
        </button>
      </div>
    </form>
  );
}
