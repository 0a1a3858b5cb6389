import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { formatBytes, getAudioSettings, getAudioUsage, putAudioRetention } from '../../api/audio.ts';
import { errorDetail } from '../../api/http.ts';

const RETENTION_CHOICES = [
  { value: '', label: 'Until the session is deleted' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '365', label: '1 year' },
];

/** The owner's kept recordings: the storage they take and how long they are kept. */
export function AudioStorageCard() {
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: ['users', 'audio-settings'], queryFn: getAudioSettings });
  const [choice, setChoice] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (days: number | null) => putAudioRetention(days),
    onSuccess: (saved) => {
      queryClient.setQueryData(['users', 'audio-settings'], saved);
      setChoice(null);
      toast.success('Audio retention saved');
    },
    onError: (cause) => toast.error(errorDetail(cause, 'Failed to save the audio retention')),
  });
  if (!settings.data) return null;
  const current = settings.data.retention_days === null ? '' : String(settings.data.retention_days);
  const shown = choice ?? current;
  const listed = RETENTION_CHOICES.some((c) => c.value === current);
  return (
    <section className="card" aria-labelledby="audio-storage-title">
      <h2 id="audio-storage-title" className="card-title">
        Recordings
      </h2>
      <p>
        {formatBytes(settings.data.used_bytes)} kept for {settings.data.sessions_with_audio}{' '}
        {settings.data.sessions_with_audio === 1 ? 'session' : 'sessions'}.
      </p>
      <div className="button-row">
        <label className="small" htmlFor="audio-retention">
          Keep recordings
        </label>
        <select
          id="audio-retention"
          className="text-input"
          value={shown}
          onChange={(event) => setChoice(event.target.value)}
        >
          {listed ? null : <option value={current}>{current} days</option>}
          {RETENTION_CHOICES.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="button button-secondary"
          disabled={shown === current || save.isPending}
          onClick={() => save.mutate(shown ? Number(shown) : null)}
        >
          {save.isPending ? 'Saving...' : 'Save'}
        </button>
      </div>
      <p className="muted small">A shorter time deletes older recordings at once; transcripts stay.</p>
    </section>
  );
}

/** For admins: what every user's kept recordings take. */
export function AudioUsageCard() {
  const usage = useQuery({ queryKey: ['admin', 'audio-usage'], queryFn: getAudioUsage });
  if (!usage.data) return null;
  return (
    <section className="card" aria-labelledby="admin-audio-title">
      <h2 id="admin-audio-title" className="card-title">
        Recording Storage
      </h2>
      <p>
        {formatBytes(usage.data.used_bytes)} in {usage.data.sessions_with_audio} sessions of{' '}
        {usage.data.owners} {usage.data.owners === 1 ? 'user' : 'users'}
      </p>
    </section>
  );
}
