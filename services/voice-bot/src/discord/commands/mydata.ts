import { memberForgetRpc, memberRecordedRpc, type RecordedSession } from '@chronicler/contracts';
import { call, ServiceError } from '@chronicler/kit';
import {
  ButtonStyle,
  ComponentType,
  MessageFlags,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type StringSelectMenuInteraction,
} from 'discord.js';
import type { BotCore } from '../core.ts';

/** Custom ids of /mydata's components: the session picked, then the confirmation. */
const PICK = 'mydata:pick';
const YES = 'mydata:yes:';
const NO = 'mydata:no';

/** Whether a component interaction belongs to /mydata. */
export const isMyDataComponent = (customId: string): boolean => customId.startsWith('mydata:');

const when = (iso: string): string => `<t:${Math.floor(Date.parse(iso) / 1000)}:d>`;

function describe(s: RecordedSession): string {
  const lines = `${s.lines} line${s.lines === 1 ? '' : 's'}`;
  return `• **${s.name}** (${when(s.started_at)}): ${lines}, ${s.track ? 'your voice track kept' : 'no voice track'}`;
}

/**
 * `/mydata`: the sessions of this server in which the caller was recorded (only they see the
 * answer), with a menu to remove their part of one (a confirmation follows). The caller is
 * the Discord user of the interaction: nobody can see or remove anyone else's.
 */
export async function myDataCommand(
  core: BotCore,
  interaction: ChatInputCommandInteraction<'cached'>,
): Promise<void> {
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const sessions = await call(core.o.bus, memberRecordedRpc, {
    discord_id: interaction.user.id,
    guild_id: interaction.guildId,
  });
  if (sessions.length === 0) {
    await interaction.editReply('Nothing of yours is kept from the recordings of this server.');
    return;
  }
  const shown = sessions.slice(0, 25);
  await interaction.editReply({
    content: [
      `You were recorded in ${sessions.length} session${sessions.length === 1 ? '' : 's'} of this server:`,
      ...shown.map(describe),
      '',
      'Pick one below to delete what was recorded of you there: your lines become “[removed at the speaker’s request]” and your voice track is deleted.',
    ].join('\n'),
    components: [
      {
        type: ComponentType.ActionRow,
        components: [
          {
            type: ComponentType.StringSelect,
            custom_id: PICK,
            placeholder: 'Delete my data from…',
            options: shown.map((s) => ({
              label: s.name.slice(0, 100) || 'Session',
              description: `${new Date(s.started_at).toISOString().slice(0, 10)} · ${s.lines} lines`.slice(
                0,
                100,
              ),
              value: s.transcript_id,
            })),
          },
        ],
      },
    ],
  });
}

/** /mydata's menu and buttons: pick a session, confirm, and its removal. */
export async function myDataComponent(
  core: BotCore,
  interaction: StringSelectMenuInteraction | ButtonInteraction,
): Promise<void> {
  const userId = interaction.user.id;
  if (interaction.customId === NO) {
    await interaction.update({ content: 'Nothing was deleted.', components: [] });
    return;
  }
  if (interaction.isStringSelectMenu() && interaction.customId === PICK) {
    const id = interaction.values[0] ?? '';
    const mine = await call(core.o.bus, memberRecordedRpc, {
      discord_id: userId,
      ...(interaction.guildId ? { guild_id: interaction.guildId } : {}),
    });
    const s = mine.find((x) => x.transcript_id === id);
    if (!s) {
      await interaction.update({ content: 'Nothing of yours is kept from that session.', components: [] });
      return;
    }
    await interaction.update({
      content: `Delete what was recorded of you in **${s.name}** (${when(s.started_at)})? Your ${s.lines} line${s.lines === 1 ? '' : 's'} become “[removed at the speaker’s request]”${s.track ? ' and your voice track is deleted' : ''}. This cannot be undone.`,
      components: [
        {
          type: ComponentType.ActionRow,
          components: [
            {
              type: ComponentType.Button,
              style: ButtonStyle.Danger,
              custom_id: `${YES}${id}`,
              label: 'Delete my data',
            },
            { type: ComponentType.Button, style: ButtonStyle.Secondary, custom_id: NO, label: 'Cancel' },
          ],
        },
      ],
    });
    return;
  }
  if (interaction.customId.startsWith(YES)) {
    const id = interaction.customId.slice(YES.length);
    await interaction.deferUpdate();
    let content: string;
    try {
      const r = await call(core.o.bus, memberForgetRpc, { discord_id: userId, id });
      content = `Done: ${r.lines} line${r.lines === 1 ? '' : 's'} of yours removed${r.tracks ? ' and your voice track deleted' : ''}. The session's summary is made again without them.`;
    } catch (err) {
      if (!ServiceError.is(err) || (err.code !== 'not_found' && err.code !== 'conflict')) throw err;
      content = err.code === 'not_found' ? 'Nothing of yours is kept from that session.' : err.message;
    }
    await interaction.editReply({ content, components: [] });
    return;
  }
  await interaction.update({ content: 'Unknown action.', components: [] });
}
