import type { Guild } from 'discord.js';
import type { BotCore } from './core.ts';
import { loadConsent } from './consent.ts';
import { beginRecording } from './lifecycle.ts';
import { ensureLink } from './links.ts';
import { endRecovered, openStates, writeState, type SessionState } from './state.ts';

/**
 * Sessions a previous process of these shards left open (session.json not ended): each is
 * ended cleanly (journalled finals re-published, then the end). When the bot is still in
 * that voice channel, recording goes on at once in a new session for the same owner.
 */
export async function recover(core: BotCore): Promise<void> {
  const states = (await openStates(core.o.recordingsDir)).filter((s) => core.holdsGuild(s.guild_id));
  for (const state of states) {
    try {
      if (state.ended_at) {
        // Ended by a shutdown: record on if still in the channel.
        await writeState(core.o.recordingsDir, { ...state, resume: false });
        const guild = core.client.guilds.cache.get(state.guild_id);
        if (guild?.members.me?.voice.channelId === state.channel_id) {
          await resumeRecording(core, guild, state, 'The bot restarted');
        }
        continue;
      }
      await endRecovered(
        core.o.bus,
        core.o.recordingsDir,
        state,
        'The voice bot restarted during the recording; it was ended and saved.',
        core.log,
      );
      const guild = core.client.guilds.cache.get(state.guild_id);
      const stillThere = guild?.members.me?.voice.channelId === state.channel_id;
      if (!guild || !stillThere) {
        await core.post(
          state.text_channel_id,
          `The recording was interrupted by a restart of the bot and has been saved: ${core.sessionUrl(state.transcript_id)}`,
        );
        continue;
      }
      await resumeRecording(core, guild, state, 'The bot restarted');
    } catch (err) {
      core.log.error({ err, transcriptId: state.transcript_id }, 'could not recover a session');
    }
  }
  // Speaker tracks of ended sessions not handed over before the last process went away.
  await core.tracks.recover((s) => core.holdsGuild(s.guild_id));
}

/** Records on into a new session after a restart, for the same owner and group, and says so. */
async function resumeRecording(core: BotCore, guild: Guild, state: SessionState, why: string): Promise<void> {
  const g = core.guildVoice(guild.id);
  await loadConsent(core, guild.id);
  for (const p of state.paused) if (!g.optedIn.has(p)) g.paused.add(p);
  const settings = await core.settings.get(guild.id);
  await ensureLink(core, guild, state.channel_id);
  const rec = await beginRecording(core, guild, {
    ownerId: state.owner_id,
    ownerDiscordId: state.owner_discord_id,
    channelId: state.channel_id,
    textChannelId: state.text_channel_id,
    name: state.name.endsWith(' (continued)') ? state.name : `${state.name} (continued)`.slice(0, 200),
    groupId: state.group_id,
    keyterms: [],
    paused: g.paused,
    consentMode: settings.consent_mode,
    language: settings.language,
  });
  core.log.info(
    { previous: state.transcript_id, transcriptId: rec.state.transcript_id },
    'recording resumed after a restart',
  );
  await core.post(
    state.text_channel_id,
    `🔴 ${why}: the recording so far is saved (${core.sessionUrl(state.transcript_id)}) and recording goes on here: ${core.sessionUrl(rec.state.transcript_id)}`,
  );
}
