import type { AutoRecordRule } from '@chronicler/contracts';
import type { Guild } from 'discord.js';
import { announceRecording } from './announce.ts';
import { loadConsent } from './consent.ts';
import type { BotCore } from './core.ts';
import { beginRecording, stopRecording } from './lifecycle.ts';
import { admit } from './limits.ts';
import { ensureLink } from './links.ts';
import type { Recording } from './recording.ts';
import { ownGroup } from './commands/start.ts';

/** The clock time now in a time zone, "HH:MM". */
function clockIn(timezone: string, now: Date): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  })
    .format(now)
    .replace(/[^0-9:]/g, '');
}

/** Whether the rule's hours (if any) include now; a window may run past midnight. */
function withinHours(rule: Pick<AutoRecordRule, 'from' | 'to' | 'timezone'>, now = new Date()): boolean {
  if (!rule.from || !rule.to) return true;
  const t = clockIn(rule.timezone, now);
  return rule.from <= rule.to ? t >= rule.from && t < rule.to : t >= rule.from || t < rule.to;
}

/**
 * Auto-record: a server's rules "record when at least N members are in channel X (optionally
 * only between these times), into group G". Looked at on every voice state change in the guild
 * and when the settings change. A recording it started stops once its channel has had no human
 * in it for the rule's `empty_minutes`; so does one a previous process started and this one
 * continues (session.json keeps `auto_record`), after a deploy or a crash.
 */
export class AutoRecorder {
  /** Auto-started recordings: guild id → the recording, its channel, the rule's wait and the emptiness timer. */
  private readonly running = new Map<
    string,
    { transcriptId: string; channelId: string; emptyMinutes: number; timer: NodeJS.Timeout | null }
  >();
  private readonly busy = new Set<string>();
  private readonly again = new Set<string>();

  constructor(private readonly core: BotCore) {}

  private humansIn(guild: Guild, channelId: string): number {
    const me = this.core.client.user?.id;
    return guild.voiceStates.cache.filter(
      (v) => v.channelId === channelId && v.id !== me && !v.member?.user.bot,
    ).size;
  }

  /** One look at a time per guild; a change that comes meanwhile gets one more look after it. */
  async check(guild: Guild): Promise<void> {
    if (this.busy.has(guild.id)) {
      this.again.add(guild.id);
      return;
    }
    this.busy.add(guild.id);
    try {
      do {
        this.again.delete(guild.id);
        await this.checkNow(guild).catch((err: unknown) =>
          this.core.log.error({ err, guildId: guild.id }, 'auto-record failed'),
        );
      } while (this.again.has(guild.id));
    } finally {
      this.busy.delete(guild.id);
    }
  }

  private async checkNow(guild: Guild): Promise<void> {
    const g = this.core.guildVoice(guild.id);
    let auto = this.running.get(guild.id);
    const adopted = g.recording?.state.auto_record;
    if (!auto && g.recording && adopted) {
      // An auto-recording a previous process started, continued by this one.
      auto = {
        transcriptId: g.recording.state.transcript_id,
        channelId: g.recording.state.channel_id,
        emptyMinutes: adopted.empty_minutes,
        timer: null,
      };
      this.running.set(guild.id, auto);
    }
    if (auto && g.recording?.state.transcript_id !== auto.transcriptId) {
      // Stopped by a command or a lost channel meanwhile.
      if (auto.timer) clearTimeout(auto.timer);
      this.running.delete(guild.id);
    } else if (auto) {
      const empty = this.humansIn(guild, auto.channelId) === 0;
      if (!empty && auto.timer) {
        clearTimeout(auto.timer);
        auto.timer = null;
      } else if (empty && !auto.timer) {
        auto.timer = setTimeout(() => void this.stopIfEmpty(guild), auto.emptyMinutes * 60_000);
        auto.timer.unref();
      }
      return;
    }
    if (g.recording || this.core.stopping) return;
    const settings = await this.core.settings.get(guild.id);
    const rule = settings.auto_record.find(
      (r) => this.humansIn(guild, r.channel_id) >= r.min_members && withinHours(r),
    );
    if (!rule) return;
    const ownerDiscordId = rule.owner_discord_id ?? guild.ownerId;
    const owner = await this.core.owner(ownerDiscordId);
    if (!owner) {
      this.core.log.warn(
        { guildId: guild.id, ownerDiscordId },
        'auto-record: the owner has no Chronicler account',
      );
      return;
    }
    const group = rule.group_id ? await ownGroup(this.core, owner.id, rule.group_id) : null;
    // Held to the same limits as /start: the owner's concurrent recordings, the guild's daily hours.
    const admission = await admit(this.core, guild.id, owner.id, rule.channel_id);
    if ('refused' in admission) {
      this.core.log.info({ guildId: guild.id, why: admission.refused }, 'auto-record: not started');
      return;
    }
    const { slot } = admission;
    let rec: Recording | null = null;
    try {
      await loadConsent(this.core, guild.id);
      await ensureLink(this.core, guild, rule.channel_id);
      if (g.recording) return;
      const channelName = guild.channels.cache.get(rule.channel_id)?.name ?? 'voice';
      rec = await beginRecording(this.core, guild, {
        ownerId: owner.id,
        ownerDiscordId,
        channelId: rule.channel_id,
        // Text in voice: a voice channel takes messages too, when no announcement channel is set.
        textChannelId: settings.announcement_channel_id ?? rule.channel_id,
        name: `${channelName} ${new Date().toISOString().slice(0, 10)}`,
        groupId: group?.id ?? null,
        keyterms: [],
        paused: g.paused,
        consentMode: settings.consent_mode,
        language: settings.language,
        autoRecord: { empty_minutes: rule.empty_minutes },
        slot,
      });
    } finally {
      // A slot no recording took (none started) is the owner's again.
      if (!rec) void slot?.release().catch(() => false);
    }
    this.running.set(guild.id, {
      transcriptId: rec.state.transcript_id,
      channelId: rule.channel_id,
      emptyMinutes: rule.empty_minutes,
      timer: null,
    });
    this.core.log.info({ guildId: guild.id, transcriptId: rec.state.transcript_id }, 'auto-record started');
    await announceRecording(this.core, rec, 'auto-record');
  }

  private async stopIfEmpty(guild: Guild): Promise<void> {
    const auto = this.running.get(guild.id);
    if (!auto) return;
    auto.timer = null;
    if (this.humansIn(guild, auto.channelId) > 0) return;
    this.running.delete(guild.id);
    if (this.core.guildVoice(guild.id).recording?.state.transcript_id !== auto.transcriptId) return;
    const rec = await stopRecording(this.core, guild.id);
    if (!rec) return;
    const g = this.core.guildVoice(guild.id);
    const link = g.link;
    g.link = null;
    await link?.close();
    const finals = rec.live.stats().finals;
    await this.core.post(
      rec.state.text_channel_id,
      `⏹️ **Recording stopped**: <#${rec.state.channel_id}> has been empty for ${auto.emptyMinutes} minute${auto.emptyMinutes === 1 ? '' : 's'}. Saved (${finals} line${finals === 1 ? '' : 's'}): ${this.core.sessionUrl(rec.state.transcript_id)}`,
    );
  }

  stop(): void {
    for (const a of this.running.values()) if (a.timer) clearTimeout(a.timer);
  }
}
