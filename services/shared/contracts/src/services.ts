/** The ten services, one name each, used for folders, packages, bus subjects and images. */
export const SERVICE_NAMES = [
  'gateway',
  'auth',
  'transcript',
  'group',
  'chat',
  'planning',
  'summary',
  'live-fanout',
  'admin-stats',
  'voice-bot',
] as const;

export type ServiceName = (typeof SERVICE_NAMES)[number];
