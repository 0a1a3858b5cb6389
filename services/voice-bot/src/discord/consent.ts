import { memberConsentsRpc, setMemberConsentRpc, type MemberConsent } from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  MessageFlags,
  Routes,
  type APIActionRowComponent,
  type APIComponentInMessageActionRow,
  type ButtonInteraction,
} from 'discord.js';
import type { BotCore } from './core.ts';

/** Button custom ids: `consent:in:<guildId>` (Record me) and `consent:out:<guildId>` (Not me). */
const CONSENT_BUTTON = /^consent:(in|out):(\d{1,25})$/;

/** The Record me / Not me buttons of an announcement or a notice. */
export function consentButtons(guildId: string): APIActionRowComponent<APIComponentInMessageActionRow>[] {
  return [
    new ActionRowBuilder<ButtonBuilder>()
      .addComponents(
        new ButtonBuilder()
          .setCustomId(`consent:in:${guildId}`)
          .setLabel('Record me')
          .setEmoji('🎙️')
          .setStyle(ButtonStyle.Success),
        new ButtonBuilder()
          .setCustomId(`consent:out:${guildId}`)
          .setLabel('Not me')
          .setStyle(ButtonStyle.Secondary),
      )
      .toJSON(),
  ];
}

/**
 * The members' lasting choices in a guild (group service), read once per process into the
 * guild's `paused` (out) and `optedIn` (in) sets, which the recording consults per packet.
 */
export async function loadConsent(core: BotCore, guildId: string): Promise<void> {
  const g = core.guildVoice(guildId);
  g.consentLoaded ??= call(core.o.bus, memberConsentsRpc, { guild_id: guildId }, { timeoutMs: 5000 }).then(
    (c) => {
      for (const u of c.out) if (!g.optedIn.has(u)) g.paused.add(u);
      for (const u of c.in) if (!g.paused.has(u)) g.optedIn.add(u);
    },
    (err: unknown) => {
      g.consentLoaded = null;
      core.log.warn({ err, guildId }, 'members’ recording choices not read');
    },
  );
  await g.consentLoaded;
}

/** Stores a member's choice, then applies it to the running recording at once. */
export async function setConsent(
  core: BotCore,
  guildId: string,
  userId: string,
  choice: MemberConsent,
): Promise<void> {
  await loadConsent(core, guildId);
  await call(core.o.bus, setMemberConsentRpc, { guild_id: guildId, user_id: userId, choice });
  const g = core.guildVoice(guildId);
  if (choice === 'out') {
    g.optedIn.delete(userId);
    g.paused.add(userId);
    await g.recording?.pause(userId);
  } else {
    g.paused.delete(userId);
    g.optedIn.add(userId);
    g.recording?.noticed.add(userId);
    await g.recording?.resume(userId);
  }
}

/** Whether a button is one of the consent buttons. */
export const isConsentButton = (customId: string): boolean => CONSENT_BUTTON.test(customId);

/** Record me / Not me pressed, on an announcement in a server or on a notice in a DM. */
export async function onConsentButton(core: BotCore, interaction: ButtonInteraction): Promise<void> {
  const [, choice, guildId] = CONSENT_BUTTON.exec(interaction.customId)!;
  await setConsent(core, guildId!, interaction.user.id, choice as MemberConsent);
  const recording = core.guildVoice(guildId!).recording;
  await interaction.reply({
    content:
      choice === 'in'
        ? recording
          ? '🎙️ You are **on the record**: what you say in the recorded channel is transcribed.'
          : '🎙️ You are on the record for the next recordings in this server.'
        : 'You are **off the record**: nothing you say is captured or transcribed until you press Record me or run `/onrecord`.',
    flags: MessageFlags.Ephemeral,
  });
}

/**
 * Tells a member who joined the recorded channel that it is recorded, with the buttons: in a
 * DM, or (their DMs closed) in the recording's text channel, mentioning them. Resolves once sent.
 */
export async function sendNotice(
  core: BotCore,
  guildId: string,
  userId: string,
  content: string,
): Promise<boolean> {
  const rec = core.guildVoice(guildId).recording;
  const body = { content, components: consentButtons(guildId), allowed_mentions: { users: [userId] } };
  try {
    const dm = (await core.client.rest.post(Routes.userChannels(), { body: { recipient_id: userId } })) as {
      id: string;
    };
    await core.client.rest.post(Routes.channelMessages(dm.id), { body });
    return true;
  } catch (err) {
    core.log.info({ err, guildId, userId }, 'notice not sent by DM; posting it in the channel');
  }
  if (!rec) return false;
  return core.client.rest
    .post(Routes.channelMessages(rec.state.text_channel_id), {
      body: { ...body, content: `<@${userId}> ${content}` },
    })
    .then(
      () => true,
      (err: unknown) => {
        core.log.warn({ err, guildId, userId }, 'notice not sent');
        return false;
      },
    );
}
