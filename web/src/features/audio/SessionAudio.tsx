import { useQuery } from '@tanstack/react-query';
import type { RefObject } from 'react';
import { apiRequest } from '../../api/http.ts';
import type { AudioTrack } from '@chronicler/contracts';
import './audio.css';

/** GET /transcripts/{id}/audio/tracks: what the session kept to play ([] when nothing). */
export function useAudioTracks(sessionId: string, enabled: boolean) {
  return useQuery({
    queryKey: ['transcripts', 'audio', sessionId],
    queryFn: () =>
      apiRequest<AudioTrack[]>(`/transcripts/${encodeURIComponent(sessionId)}/audio/tracks`, {
        errorMessage: 'Failed to load the recording',
      }),
    enabled,
  });
}

/**
 * The session's recording, played from the server with range requests (the browser's own
 * player asks for the bytes it needs, with the sign-in cookie). Clicking a line's time plays
 * from there (see TranscriptLines' onTimeClick). A session the voice bot recorded has one
 * track per speaker: a choice of whose to hear.
 */
export function SessionAudio({
  track,
  tracks = [track],
  audioRef,
  speakerNames = new Map(),
  onChoose,
}: {
  track: AudioTrack;
  tracks?: readonly AudioTrack[];
  audioRef: RefObject<HTMLAudioElement | null>;
  speakerNames?: ReadonlyMap<string, string>;
  onChoose?: (url: string) => void;
}) {
  // A speaker's track of a short session is a few KB: shown as such rather than '0.0 MB'.
  const size =
    track.size < 1024 * 1024
      ? `${(track.size / 1024).toFixed(1)} KB`
      : `${(track.size / (1024 * 1024)).toFixed(1)} MB`;
  const perSpeaker = tracks.filter((t) => t.speaker !== null);
  const nameOf = (t: AudioTrack) =>
    t.speaker === null ? 'Whole recording' : (speakerNames.get(t.speaker) ?? t.speaker);
  return (
    <div className="session-audio">
      {perSpeaker.length > 0 && onChoose ? (
        <label className="session-audio-track">
          Speaker track{' '}
          <select value={track.url} onChange={(e) => onChoose(e.target.value)}>
            {tracks.map((t) => (
              <option key={t.url} value={t.url}>
                {nameOf(t)}
              </option>
            ))}
          </select>
        </label>
      ) : null}
      <audio ref={audioRef} className="session-audio-player" controls preload="metadata" src={track.url}>
        <track kind="captions" />
      </audio>
      <p className="muted small">
        {track.speaker === null ? 'Recording' : `${nameOf(track)}'s track`} ({track.format.toUpperCase()},{' '}
        {size}). Click a line's time to play {perSpeaker.length > 0 ? "that speaker's track " : ''}from there.
      </p>
    </div>
  );
}
