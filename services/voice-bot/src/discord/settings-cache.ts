import { getServerSettingsRpc, serverSettingsChangedEvent, type ServerSettings } from '@chronicler/contracts';
import { call, type Bus, type Logger, type Subscription } from '@chronicler/kit';

/** How long a server's settings are kept without a change event (a missed event heals then). */
const TTL_MS = 5 * 60_000;

/**
 * Each server's settings as the group service keeps them, read on first use and dropped when
 * the group service announces a change (evt.discord.settings-changed) or after TTL_MS, so a
 * change made on the web or with /settings applies without a restart.
 */
export class SettingsCache {
  private readonly entries = new Map<string, { at: number; settings: Promise<ServerSettings> }>();
  private sub: Subscription | null = null;

  constructor(
    private readonly bus: Bus,
    private readonly log: Logger,
    /** A server's settings changed (after the cached copy was dropped). */
    private readonly onChange: (guildId: string) => void = () => {},
  ) {}

  start(): void {
    this.sub = this.bus.subscribe(serverSettingsChangedEvent.subject, (payload) => {
      const guildId = (payload as { guild_id?: unknown }).guild_id;
      if (typeof guildId !== 'string') return;
      this.entries.delete(guildId);
      this.onChange(guildId);
    });
  }

  async stop(): Promise<void> {
    await this.sub?.unsubscribe();
  }

  /** The server's settings; the defaults' meaning (announce, no group) if the service is down. */
  async get(guildId: string): Promise<ServerSettings> {
    const hit = this.entries.get(guildId);
    if (hit && Date.now() - hit.at < TTL_MS) return hit.settings;
    const settings = call(this.bus, getServerSettingsRpc, { guild_id: guildId }, { timeoutMs: 5000 });
    this.entries.set(guildId, { at: Date.now(), settings });
    try {
      return await settings;
    } catch (err) {
      this.entries.delete(guildId);
      this.log.warn({ err, guildId }, 'server settings not read; using the defaults');
      return {
        guild_id: guildId,
        default_group_id: null,
        consent_mode: 'announce',
        announcement_channel_id: null,
        starter_roles: [],
        language: null,
        auto_record: [],
        updated_at: null,
      };
    }
  }
}
