import type { ReactNode } from 'react';
import { SessionAudio, useAudioTracks } from './SessionAudio.tsx';
import { useAudioPlayer } from './use-audio-player.ts';

/**
 * The viewer's player for a session that kept its recording: the element to show above the
 * lines, and what the lines need (a time that plays from there, the time being heard).
 * Sessions typed or pasted have no recording and ask for none.
 */
export function useSessionPlayer(session: { id: string; source: string; status: string }): {
  player: ReactNode;
  lineProps: { onTimeClick?: (seconds: number) => void; playingTime?: number | null };
} {
  const tracks = useAudioTracks(session.id, session.source !== 'manual' && session.status !== 'active');
  const { ref, time, seek } = useAudioPlayer();
  const track = tracks.data?.find((t) => t.speaker === null) ?? tracks.data?.[0];
  if (!track) return { player: null, lineProps: {} };
  return {
    player: <SessionAudio track={track} audioRef={ref} />,
    lineProps: { onTimeClick: seek, playingTime: time },
  };
}
