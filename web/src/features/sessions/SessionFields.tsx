import { SESSION_NAME_MAX, TRANSCRIPT_MAX } from '@chronicler/contracts';
import { useId } from 'react';
import { countTranscriptLines, type SessionFormValues } from './session-form-rules.ts';

type SetField = <K extends keyof SessionFormValues>(key: K, value: SessionFormValues[K]) => void;

/** Name, date and summary, the fields every session has. */
export function SessionBasicFields(props: { values: SessionFormValues; set: SetField; disabled: boolean }) {
  const { values, set } = props;
  const submitting = props.disabled;
  const ids = { name: useId(), date: useId(), dateHint: useId(), summary: useId() };
  return (
    <>
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
    </>
  );
}

/**
 * The transcript box; in edit mode a long transcript stays collapsed (its line count shown)
 * until the user asks to edit it.
 */
export function TranscriptField(props: {
  value: string;
  onChange: (value: string) => void;
  open: boolean;
  onOpen: () => void;
  originalTranscript: string;
  disabled: boolean;
}) {
  const { open: transcriptOpen, originalTranscript } = props;
  const submitting = props.disabled;
  const id = useId();
  return (
    <div className="form-field">
      <label className="field-label" htmlFor={id}>
        Session Transcript
      </label>
      {transcriptOpen ? (
        <textarea
          id={id}
          className="text-input form-textarea"
          rows={10}
          value={props.value}
          placeholder={`Paste the session transcript here (maximum ${TRANSCRIPT_MAX.toLocaleString('en-US')} characters)`}
          disabled={submitting}
          onChange={(event) => props.onChange(event.target.value)}
        />
      ) : (
        <div className="transcript-collapsed">
          <p className="muted">Current transcript has {countTranscriptLines(originalTranscript)} lines.</p>
          <button
            type="button"
            className="button button-secondary"
            disabled={submitting}
            onClick={props.onOpen}
          >
            Edit Transcript
          </button>
        </div>
      )}
    </div>
  );
}
