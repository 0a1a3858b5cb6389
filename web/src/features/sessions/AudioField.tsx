import {
  AUDIO_KEPT_UNTRANSCRIBED,
  AUDIO_UPLOAD_UNAVAILABLE,
  SPEECH_SETUP_SECTION,
} from '@chronicler/contracts';
import { useId } from 'react';
import { AUDIO_ACCEPT } from './session-form-rules.ts';
import { useAudioFile } from './use-audio-file.ts';

/** The recording to upload with a new session, checked as soon as it is chosen. */
export function AudioField({
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
  const { inputRef, error, unavailable, untranscribed, checking, choose, clear } = useAudioFile(onChange);

  return (
    <div className="form-field">
      <div className="field-label-row">
        <label className="field-label" htmlFor={inputId}>
          Upload Audio
        </label>
        {unavailable ? (
          <span id={hintId} className="field-unavailable">
            {AUDIO_UPLOAD_UNAVAILABLE} See “{SPEECH_SETUP_SECTION}” in the README.
          </span>
        ) : null}
      </div>
      <input
        ref={inputRef}
        id={inputId}
        className="file-input"
        type="file"
        accept={AUDIO_ACCEPT}
        disabled={disabled || unavailable || checking}
        aria-describedby={
          [unavailable ? hintId : '', error ? errorId : ''].filter(Boolean).join(' ') || undefined
        }
        aria-invalid={error ? true : undefined}
        onChange={choose}
      />
      {untranscribed ? (
        <p className="field-hint">
          {AUDIO_KEPT_UNTRANSCRIBED} See “{SPEECH_SETUP_SECTION}” in the README.
        </p>
      ) : !unavailable ? (
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

/** How much of the recording has been sent. */
export function UploadProgress({ percent }: { percent: number }) {
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
