import type { AudioSettings, AudioUsage } from '@chronicler/contracts';
import { apiRequest } from './http.ts';

export type { AudioSettings, AudioUsage } from '@chronicler/contracts';

/** GET /users/audio-settings: the retention of kept recordings and the storage they take. */
export function getAudioSettings(): Promise<AudioSettings> {
  return apiRequest<AudioSettings>('/users/audio-settings', {
    errorMessage: 'Failed to load the audio settings',
  });
}

/** PUT /users/audio-settings: days to keep recordings, or null to keep them; errors are rethrown. */
export function putAudioRetention(days: number | null): Promise<AudioSettings> {
  return apiRequest<AudioSettings>('/users/audio-settings', {
    method: 'PUT',
    body: { retention_days: days },
    errorMessage: 'Failed to save the audio retention',
  });
}

/** GET /admin/audio-usage: everyone's kept recordings (admins only). */
export function getAudioUsage(): Promise<AudioUsage> {
  return apiRequest<AudioUsage>('/admin/audio-usage', { errorMessage: 'Failed to load the audio storage' });
}

/** Bytes as people read them: '0 B', '12.3 MB', '1.2 GB'. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
