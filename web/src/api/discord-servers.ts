import type {
  GuildDirectory,
  ManagedGuild,
  ServerSettings,
  ServerSettingsChange,
} from '@chronicler/contracts';
import { apiRequest } from './http.ts';

export type { GuildDirectory, ManagedGuild, ServerSettings, ServerSettingsChange };

/** GET /discord/servers: the Discord servers the user manages (as of their last Discord sign-in). */
export function listDiscordServers(): Promise<ManagedGuild[]> {
  return apiRequest<ManagedGuild[]>('/discord/servers', {
    errorMessage: 'Failed to load your Discord servers',
  });
}

/** GET /discord/servers/{id}/settings: the voice bot's settings there. */
export function getServerSettings(guildId: string): Promise<ServerSettings> {
  return apiRequest<ServerSettings>(`/discord/servers/${encodeURIComponent(guildId)}/settings`, {
    errorMessage: 'Failed to load the server settings',
  });
}

/** PUT /discord/servers/{id}/settings: applies a change; answers the settings as stored. */
export function putServerSettings(guildId: string, change: ServerSettingsChange): Promise<ServerSettings> {
  return apiRequest<ServerSettings>(`/discord/servers/${encodeURIComponent(guildId)}/settings`, {
    method: 'PUT',
    body: change,
    errorMessage: 'Failed to save the server settings',
  });
}

/** GET /discord/servers/{id}/directory: the server's channels and roles, as the bot last saw them. */
export function getServerDirectory(guildId: string): Promise<GuildDirectory> {
  return apiRequest<GuildDirectory>(`/discord/servers/${encodeURIComponent(guildId)}/directory`, {
    errorMessage: "Failed to load the server's channels",
  });
}
