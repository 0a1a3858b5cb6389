import { useEffect, useState, type ReactNode } from 'react';
import type { AudioTrack } from '@chronicler/contracts';
import { SessionAudio, useAudioTracks } from './SessionAudio.tsx';
import { useAudioPlayer } from './use-audio-player.ts';

/**
 * The track a line of `speaker` plays from: the one of that name (as recorded, or as the
 * owner renamed it, in any case); null when the session has no track of theirs.
 */
function trackOfSpeaker(
  tracks: readonly AudioTrack[],
  speaker: string | null,
  names: ReadonlyMap<string, string>,
): AudioTrack | null {
  if (speaker === null) return null;
  const wanted = speaker.toLowerCase();
  return (
    tracks.find(
      (t) =>
        t.speaker !== null &&
        (t.speaker.toLowerCase() === wanted || names.get(t.speaker)?.toLowerCase() === wanted),
    ) ?? null
  );
}

/**
 * The viewer's player for a session that kept its recording: the element to show above the
 * lines, and what the lines need (a time that plays from there, the time being heard).
 * Sessions typed or pasted have no recording and ask for none. A session the voice bot
 * recorded has a track per speaker, each on the session's clock (time 0 = its start): the
 * owner picks one, and a line's time plays that line's speaker's track from there.
 */
export function useSessionPlayer(
  session: { id: string; source: string; status: string },
  speakerNames: ReadonlyMap<string, string> = new Map(),
): {
  player: ReactNode;
  lineProps: { onTimeClick?: (seconds: number, speaker: string | null) => void; playingTime?: number | null };
} {
  const tracks = useAudioTracks(session.id, session.source !== 'manual' && session.status !== 'active');
  const { ref, time, seek } = useAudioPlayer();
  const [chosen, setChosen] = useState<string | null>(null);
  // A seek asked for along with a change of track: done once the element has the new track.
  const [pending, setPending] = useState<number | null>(null);
  const all = tracks.data ?? [];
  const track = all.find((t) => t.url === chosen) ?? all.find((t) => t.speaker === null) ?? all[0] ?? null;
  useEffect(() => {
    if (pending === null) return;
    setPending(null);
    seek(pending);
  }, [pending, track?.url, seek]);
  if (!track) return { player: null, lineProps: {} };
  const play = (seconds: number, speaker: string | null) => {
    const theirs = trackOfSpeaker(all, speaker, speakerNames);
    if (theirs && theirs.url !== track.url) {
      setChosen(theirs.url);
      setPending(seconds);
    } else seek(seconds);
  };
  return {
    player: (
      <SessionAudio
        track={track}
        tracks={all}
        audioRef={ref}
        speakerNames={speakerNames}
        onChoose={(url) => setChosen(url)}
      />
    ),
    lineProps: { onTimeClick: play, playingTime: time },
  };
}

/**
 * A link to a moment (`#t=`, from search, the codex or a story) plays the recording from there,
 * on the track of whoever speaks at that moment, once per moment, as soon as the tracks are known.
 */
export function usePlayMoment(
  moment: { seconds: number } | { line: number } | null,
  lines: readonly { seconds: number | null; speaker: string | null }[],
  play: ((seconds: number, speaker: string | null) => void) | undefined,
): void {
  const [played, setPlayed] = useState<typeof moment>(null);
  useEffect(() => {
    if (!moment || !('seconds' in moment) || !play || played === moment) return;
    setPlayed(moment);
    const line = lines.find((l) => l.seconds !== null && l.seconds >= moment.seconds);
    play(moment.seconds, line?.speaker ?? null);
  }, [moment, lines, play, played]);
}
