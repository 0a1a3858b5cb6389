import { AUDIO_UPLOAD_UNAVAILABLE, SESSION_NAME_MAX } from '@chronicler/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import toast from 'react-hot-toast';
import { useNavigate } from 'react-router-dom';
import { getAppConfig } from '../../api/config.ts';
import { isApiError } from '../../api/http.ts';
import {
  createAudioSession,
  createManualSession,
  updateSession,
  type SessionUpdatePayload,
} from '../../api/sessions.ts';
import type { TranscriptDetail } from '../../api/types.ts';
import { queryKeys } from '../../app/query-client.ts';
import {
  AUDIO_ACCEPT,
  audioFileError,
  countTranscriptLines,
  dateInputValue,
  sessionDateIso,
  sessionFormError,
  type SessionFormValues,
} from './session-form-rules.ts';
import './sessions.css';

type SessionFormProps = { mode: 'create'; groupId?: string } | { mode: 'edit'; session: TranscriptDetail };

const SAVE_FAILED = 'Failed to save session. Please try again.';

/** What to show for a failed save: the server's own reason when it gave one. */
function saveFailureMessage(error: unknown): string {
  return isApiError(error) && error.detail ? error.detail : SAVE_FAILED;
}

function AudioField({
  audio,
  onChange,
  disabled,
}: {
  audio: File | null;
  onChange: (file: File | null) => void;
  disabled: boolean;
}) {
  const inputId = useId();
  const hintId = useId();
  const errorId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string | null>(null);
  const config = useQuery({ queryKey: queryKeys.appConfig, queryFn: getAppConfig });
  const provider = config.data?.speech_provider;
  // A failed config lookup leaves no way to know an upload would be accepted: say so.
  const unavailable = (config.isSuccess && !provider) || config.isError;

  const choose = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0] ?? null;
    if (!file) {
      setError(null);
      onChange(null);
      return;
    }
    const problem = audioFileError(file);
    setError(problem);
    if (problem) {
      // The rejected file must not be sent with the form.
      event.target.value = '';
      onChange(null);
      return;
    }
    onChange(file);
  };

  const clear = () => {
    if (inputRef.current) inputRef.current.value = '';
    setError(null);
    onChange(null);
  };

  return (
    <div className="form-field">
      <div className="field-label-row">
        <label className="field-label" htmlFor={inputId}>
          Upload Audio
        </label>
        {unavailable ? (
          <span id={hintId} className="field-unavailable">
            {AUDIO_UPLOAD_UNAVAILABLE}
          </span>
        ) : null}
      </div>
      <input
        ref={inputRef}
        id={inputId}
        className="file-input"
        type="file"
        accept={AUDIO_ACCEPT}
        disabled={disabled || unavailable || config.isPending}
        aria-describedby={
          [unavailable ? hintId : '', error ? errorId : ''].filter(Boolean).join(' ') || undefined
        }
        aria-invalid={error ? true : undefined}
        onChange={choose}
      />
      {!unavailable ? (
        <p className="field-hint">
          Optional. An MP3, M4A, WAV, AAC, OGG or WebM recording of up to 500MB is transcribed automatically.
        </p>
      ) : null}
      {audio ? (
        <p className="audio-chosen">
          <span>
            Selected: <strong>{audio.name}</strong> ({(audio.size / (1024 * 1024)).toFixed(2)}MB)
          </span>
          <button type="button" className="link-button" onClick={clear} disabled={disabled}>
            Remove
          </button>
        </p>
      ) : null}
      {error ? (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function UploadProgress({ percent }: { percent: number }) {
  return (
    <div className="upload-progress">
      <div className="upload-progress-label">
        <span>Uploading audio...</span>
        <span>{percent}%</span>
      </div>
      <div
        className="upload-progress-track"
        role="progressbar"
        aria-label="Audio upload progress"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
      >
        <div className="upload-progress-bar" style={{ width: `${percent}%` }} />
      </div>
    </div>
  );
}

/** The session form in both modes: create (with optional group and audio) and edit. */
export function SessionForm(props: SessionFormProps) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const ids = { name: useId(), date: useId(), dateHint: useId(), summary: useId(), transcript: useId() };
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
  const [formError, setFormError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);

  const set = <K extends keyof SessionFormValues>(key: K, value: SessionFormValues[K]) =>
    setValues((old) => ({ ...old, [key]: value }));
  const transcriptChanged = editing !== null && transcriptOpen && values.transcript !== originalTranscript;

  const refreshCaches = async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.transcripts }),
      queryClient.invalidateQueries({ queryKey: queryKeys.groups }),
    ]);
  };

  const create = useMutation({
    mutationFn: async (form: SessionFormValues) => {
      const groupId = props.mode === 'create' ? props.groupId : undefined;
      const common = {
        name: form.name.trim(),
        session_date: sessionDateIso(form.date),
        ...(form.summary.trim() ? { summary: form.summary.trim() } : {}),
        ...(groupId ? { group_id: groupId } : {}),
      };
      if (form.audio) {
        setProgress(0);
        return createAudioSession({ ...common, audio: form.audio }, setProgress);
      }
      return createManualSession({
        ...common,
        ...(form.transcript.trim() ? { transcript: form.transcript } : {}),
      });
    },
    // An upload of up to 500 MB is not something to send twice behind the user's back.
    retry: false,
    onSuccess: async (_session, form) => {
      toast.success(form.audio ? 'Audio session created successfully' : 'Session created successfully');
      await refreshCaches();
      const groupId = props.mode === 'create' ? props.groupId : undefined;
      void navigate(groupId ? `/groups/${groupId}` : '/', { replace: true });
    },
    onError: (error, form) => {
      console.error(form.audio ? 'Failed to create audio session' : 'Failed to create session', error);
      toast.error(form.audio ? 'Failed to create audio session' : 'Failed to create session');
      setFormError(saveFailureMessage(error));
    },
    onSettled: () => setProgress(null),
  });

  const update = useMutation({
    mutationFn: (payload: SessionUpdatePayload) => updateSession(editing!.id, payload),
    onSuccess: async (updated, payload) => {
      queryClient.setQueryData<TranscriptDetail>(queryKeys.transcript(editing!.id), (old) =>
        old ? { ...old, ...updated, content: payload.transcript ?? old.content } : old,
      );
      toast.success('Session updated successfully');
      await refreshCaches();
      void navigate(`/sessions/${editing!.id}`, { replace: true });
    },
    onError: (error) => {
      console.error('Failed to update session', error);
      toast.error('Failed to update session');
      setFormError(saveFailureMessage(error));
    },
  });

  const submitting = create.isPending || update.isPending;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (submitting) return;
    const problem = sessionFormError(values, props.mode, transcriptChanged);
    setFormError(problem);
    if (problem) return;
    if (!editing) {
      create.mutate(values);
      return;
    }
    update.mutate({
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

  const transcriptBox = (
    <textarea
      id={ids.transcript}
      className="text-input form-textarea"
      rows={10}
      value={values.transcript}
      placeholder="Paste the session transcript here (maximum 500,000 characters)"
      disabled={submitting}
      onChange={(event) => set('transcript', event.target.value)}
    />
  );

  return (
    <form className="card session-form" onSubmit={submit} noValidate aria-busy={submitting || undefined}>
      <div className="form-field">
        <label className="field-label" htmlFor={ids.name}>
          Session Name *
        </label>
        <input
          id={ids.name}
          className="text-input"
          type="text"
          maxLength={SESSION_NAME_MAX}
          value={values.name}
          autoComplete="off"
          required
          disabled={submitting}
          onChange={(event) => set('name', event.target.value)}
        />
      </div>

      <div className="form-field">
        <label className="field-label" htmlFor={ids.date}>
          Session Date *
        </label>
        <input
          id={ids.date}
          className="text-input date-input"
          type="date"
          value={values.date}
          required
          disabled={submitting}
          aria-describedby={ids.dateHint}
          onChange={(event) => set('date', event.target.value)}
        />
        <p id={ids.dateHint} className="field-hint">
          This date determines the order sessions are displayed.
        </p>
      </div>

      <div className="form-field">
        <label className="field-label" htmlFor={ids.summary}>
          Session Summary
        </label>
        <textarea
          id={ids.summary}
          className="text-input form-textarea"
          rows={4}
          value={values.summary}
          disabled={submitting}
          onChange={(event) => set('summary', event.target.value)}
        />
      </div>

      {values.audio ? null : (
        <div className="form-field">
          <label className="field-label" htmlFor={ids.transcript}>
            Session Transcript
          </label>
          {transcriptOpen ? (
            transcriptBox
          ) : (
            <div className="transcript-collapsed">
              <p className="muted">
                Current transcript has {countTranscriptLines(originalTranscript)} lines.
              </p>
              <button
                type="button"
                className="button button-secondary"
                disabled={submitting}
                onClick={() => setTranscriptOpen(true)}
              >
                Edit Transcript
              </button>
            </div>
          )}
        </div>
      )}

      {props.mode === 'create' ? (
        <AudioField audio={values.audio} onChange={chooseAudio} disabled={submitting} />
      ) : null}

      {progress !== null ? <UploadProgress percent={progress} /> : null}

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
