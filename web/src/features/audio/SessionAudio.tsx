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
 * from there (see TranscriptLines' onTimeClick).
 */
export function SessionAudio({
  track,
  audioRef,
}: {
  track: AudioTrack;
  audioRef: RefObject<HTMLAudioElement | null>;
}) {
  const mb = (track.size / (1024 * 1024)).toFixed(1);
  return (
    <div className="session-audio">
      <audio ref={audioRef} className="session-audio-player" controls preload="metadata" src={track.url}>
        <track kind="captions" />
      </audio>
      <p className="muted small">
        Recording ({track.format.toUpperCase()}, {mb} MB). Click a line's time to play from there.
      </p>
    </div>
  );
}
