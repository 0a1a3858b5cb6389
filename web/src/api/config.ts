import { apiRequest } from './http.ts';
import type { AppConfig } from './types.ts';

export function getAppConfig(): Promise<AppConfig> {
  return apiRequest<AppConfig>('/config', { errorMessage: 'Could not load the configuration' });
}
