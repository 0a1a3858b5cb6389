export { LiveSession } from './session.ts';
export type { LiveSessionOptions } from './session-options.ts';
export type { LiveNotice } from './session-lines.ts';
export { announceReconnecting, loadResumePoint, type ResumePoint } from './resume.ts';
export type { PcmFormat, Speaker, SpeakerStats } from './speaker-channel.ts';
export { OggOpusRecorder, parseOggPages, oggPackets } from './ogg-writer.ts';
export { oggCrc32 } from './ogg-crc.ts';
export { OpusPacketDecoder, OpusFrameEncoder, OPUS_SILENCE_FRAME, opusPacketSamples } from './opus.ts';
export { Downsampler48kStereoTo16kMono } from './resample.ts';
export {
  playTurns,
  scaledClock,
  speak,
  synthesizeOpus,
  synthesizeTurns,
  SPEAKER_VOICES,
  toDiscordPcm,
  type AudioSink,
  type PlayOptions,
  type PlayedTurn,
  type SynthesizedTurn,
  type Turn,
} from './synth.ts';
