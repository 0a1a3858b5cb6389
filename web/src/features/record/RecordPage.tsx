import { AUDIO_KEPT_UNTRANSCRIBED } from '@chronicler/contracts';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState, type FormEvent } from 'react';
import { useNavigate, useParams } from 'react-router-dom';
import { getAppConfig } from '../../api/config.ts';
import { errorDetail } from '../../api/http.ts';
import { listGroups } from '../../api/lists.ts';
import { startTableRecording } from '../../api/table-recordings.ts';
import { queryKeys } from '../../app/query-client.ts';
import { listRecordings, type LocalRecording } from './chunk-store.ts';
import { RecordLiveLines } from './RecordLiveLines.tsx';
import { recorderMimeType, useTableRecorder } from './use-table-recorder.ts';
import './record.css';

const clock = (ms: number) => {
  const s = Math.floor(ms / 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}`;
};

const today = () => new Date().toISOString().slice(0, 10);

/** /record and /groups/:groupId/record: "Record at the table". */
export function RecordPage() {
  const { groupId } = useParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const ids = { name: useId(), date: useId(), group: useId() };
  const groups = useQuery({ queryKey: queryKeys.groups, queryFn: listGroups });
  const config = useQuery({ queryKey: queryKeys.appConfig, queryFn: getAppConfig });
  const [name, setName] = useState(`Session at the table, ${today()}`);
  const [date, setDate] = useState(today());
  const [group, setGroup] = useState(groupId ?? '');
  const [starting, setStarting] = useState(false);
  const [startError, setStartError] = useState<string | null>(null);
  const [found, setFound] = useState<LocalRecording[] | null>(null);
  const rec = useTableRecorder((id) => navigate(`/sessions/${id}`));
  const mimeType = recorderMimeType();

  useEffect(() => {
    void listRecordings()
      .then(setFound)
      .catch(() => setFound([]));
  }, []);

  const begin = async (event: FormEvent) => {
    event.preventDefault();
    if (!mimeType) return;
    setStarting(true);
    setStartError(null);
    try {
      const session_date = new Date(`${date}T12:00:00`).toISOString();
      const started = await startTableRecording({
        name,
        session_date,
        group_id: group || null,
        mime_type: mimeType,
      });
      await rec.record({
        id: started.id,
        name: name.trim(),
        session_date,
        group_id: group || null,
        mime_type: mimeType,
        live: started.live,
        counts: [],
        elapsed_ms: 0,
        stopped: false,
      });
      setFound([]);
      // A live recording is a session from its start: the sidebar and lists show it now.
      if (started.live) void queryClient.invalidateQueries({ queryKey: queryKeys.transcripts });
    } catch (err) {
      setStartError(errorDetail(err, 'Could not start the recording'));
    } finally {
      setStarting(false);
    }
  };

  const active = rec.state !== 'idle';
  const interrupted = !active ? (found ?? []) : [];

  return (
    <div className="page page-narrow record-page">
      <header className="page-header">
        <h1 className="page-title">Record at the table</h1>
        <p className="page-lead">
          Put this phone or laptop in the middle of the table. The recording is sent to Chronicler every few
          seconds as you play, so a reload or a dropped network loses at most the last few seconds.
        </p>
      </header>

      {interrupted.map((r) => (
        <section key={r.id} className="card record-found" aria-label="Interrupted recording">
          <p>
            <strong>{r.name}</strong> was interrupted after {clock(r.elapsed_ms)}. What was recorded is kept
            in this browser and on the server.
          </p>
          <div className="button-row">
            {!r.stopped ? (
              <button
                type="button"
                className="button button-primary"
                onClick={() =>
                  void rec.record(r).catch((err: unknown) => setStartError(errorDetail(err, 'No microphone')))
                }
              >
                Resume recording
              </button>
            ) : null}
            <button type="button" className="button button-secondary" onClick={() => void rec.finishFound(r)}>
              Stop and save
            </button>
          </div>
        </section>
      ))}

      {!active ? (
        <form className="card record-form" onSubmit={(e) => void begin(e)}>
          <div className="form-field">
            <label className="field-label" htmlFor={ids.name}>
              Session Name
            </label>
            <input
              id={ids.name}
              className="text-input"
              value={name}
              maxLength={200}
              required
              onChange={(e) => setName(e.target.value)}
            />
          </div>
          <div className="form-field">
            <label className="field-label" htmlFor={ids.date}>
              Session Date
            </label>
            <input
              id={ids.date}
              className="text-input date-input"
              type="date"
              value={date}
              required
              onChange={(e) => setDate(e.target.value)}
            />
          </div>
          <div className="form-field">
            <label className="field-label" htmlFor={ids.group}>
              Campaign
            </label>
            <select
              id={ids.group}
              className="text-input"
              value={group}
              onChange={(e) => setGroup(e.target.value)}
            >
              <option value="">No campaign</option>
              {(groups.data ?? []).map((g) => (
                <option key={g.id} value={g.id}>
                  {g.name}
                </option>
              ))}
            </select>
          </div>
          {config.isSuccess && !config.data.speech_provider ? (
            <p className="field-hint">{AUDIO_KEPT_UNTRANSCRIBED}</p>
          ) : null}
          {!mimeType ? (
            <p className="field-error" role="alert">
              This browser cannot record Opus audio (MediaRecorder). Try a current Chrome, Edge, Firefox or
              Safari.
            </p>
          ) : null}
          {startError ? (
            <p className="field-error" role="alert">
              {startError}
            </p>
          ) : null}
          <button type="submit" className="button button-primary" disabled={!mimeType || starting}>
            {starting ? 'Starting...' : 'Start recording'}
          </button>
        </form>
      ) : (
        <section className="card record-panel" aria-label="Recording">
          <p className="record-clock" role="timer" aria-label="Recorded time">
            {clock(rec.elapsed)}
          </p>
          <p className="record-state" aria-live="polite">
            {rec.state === 'recording'
              ? 'Recording'
              : rec.state === 'paused'
                ? 'Paused'
                : rec.state === 'saving'
                  ? 'Saving the recording...'
                  : rec.state === 'failed'
                    ? 'Not saved'
                    : 'Saved'}
          </p>
          <div
            className="record-meter"
            role="meter"
            aria-label="Microphone level"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={Math.round(rec.level * 100)}
          >
            <div className="record-meter-fill" style={{ width: `${Math.round(rec.level * 100)}%` }} />
          </div>
          <p className="record-upload" aria-live="polite">
            {rec.offline
              ? `Network lost: ${rec.pending} chunk${rec.pending === 1 ? '' : 's'} kept in this browser, sent when it is back.`
              : rec.pending > 0
                ? `Sending: ${rec.pending} chunk${rec.pending === 1 ? '' : 's'} waiting.`
                : 'Everything recorded so far is saved on the server.'}
          </p>
          {rec.error ? (
            <p className="field-error" role="alert">
              {rec.error}
            </p>
          ) : null}
          <div className="button-row">
            {rec.state === 'recording' ? (
              <button type="button" className="button button-secondary" onClick={rec.pause}>
                Pause
              </button>
            ) : null}
            {rec.state === 'paused' ? (
              <button type="button" className="button button-secondary" onClick={rec.resume}>
                Resume
              </button>
            ) : null}
            {rec.state === 'recording' || rec.state === 'paused' ? (
              <button type="button" className="button button-primary" onClick={() => void rec.stop()}>
                Stop
              </button>
            ) : null}
          </div>
          <p className="field-hint">
            {rec.wakeLock === 'held'
              ? 'The screen is kept awake while recording. '
              : 'This browser cannot keep the screen awake: set the screen timeout long, or keep it plugged in. '}
            On most phones, locking the screen or switching to another app pauses or stops the microphone for
            this page: leave this page open and the screen on until you press Stop. If the recording stops,
            reopen this page to resume it.
          </p>
        </section>
      )}
      {active && rec.current?.live ? <RecordLiveLines sessionId={rec.current.id} /> : null}
    </div>
  );
}
