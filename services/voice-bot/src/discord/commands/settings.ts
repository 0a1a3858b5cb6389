import {
  findGroupsRpc,
  putServerSettingsRpc,
  type AutoRecordRule,
  type ServerSettings,
  type ServerSettingsChange,
} from '@chronicler/contracts';
import { call, ServiceError } from '@chronicler/kit';
import {
  MessageFlags,
  PermissionFlagsBits,
  SlashCommandBuilder,
  type ChatInputCommandInteraction,
} from 'discord.js';
import type { BotCore } from '../core.ts';

type Cmd = ChatInputCommandInteraction<'cached'>;

/** `/settings`: Manage Server by default; every reply is for the caller only. */
export const SETTINGS_COMMAND = new SlashCommandBuilder()
  .setName('settings')
  .setDescription("This server's recording settings")
  .setDefaultMemberPermissions(PermissionFlagsBits.ManageGuild)
  .setContexts(0)
  .addSubcommand((c) => c.setName('show').setDescription('Show the settings'))
  .addSubcommand((c) =>
    c
      .setName('consent')
      .setDescription('Who is recorded: everyone unless they opt out, or only who opts in')
      .addStringOption((o) =>
        o
          .setName('mode')
          .setDescription('announce or opt_in')
          .setRequired(true)
          .addChoices({ name: 'announce (opt out)', value: 'announce' }, { name: 'opt in', value: 'opt_in' }),
      ),
  )
  .addSubcommand((c) =>
    c
      .setName('channel')
      .setDescription('Where recordings are announced (empty: where /start runs)')
      .addStringOption((o) => o.setName('channel').setDescription('#channel or its id').setMaxLength(40)),
  )
  .addSubcommand((c) =>
    c
      .setName('group')
      .setDescription('Default group of /start (one of your groups; empty: none)')
      .addStringOption((o) => o.setName('name').setDescription('Group name').setMaxLength(100)),
  )
  .addSubcommand((c) =>
    c
      .setName('language')
      .setDescription('Transcription language, e.g. en, de, fr (empty: the provider decides)')
      .addStringOption((o) => o.setName('code').setDescription('Language code').setMaxLength(20)),
  )
  .addSubcommand((c) =>
    c
      .setName('starters')
      .setDescription('Roles that may start recordings (empty: anyone with an account)')
      .addStringOption((o) =>
        o.setName('roles').setDescription('@roles or ids, space-separated').setMaxLength(1000),
      ),
  )
  .addSubcommand((c) =>
    c
      .setName('autorecord')
      .setDescription('Record a voice channel by itself when enough members are in it')
      .addStringOption((o) =>
        o.setName('channel').setDescription('#voice channel or its id').setRequired(true),
      )
      .addStringOption((o) =>
        o.setName('members').setDescription('At least this many (0: remove the rule)').setRequired(true),
      )
      .addStringOption((o) => o.setName('from').setDescription('Only from HH:MM'))
      .addStringOption((o) => o.setName('to').setDescription('Only until HH:MM'))
      .addStringOption((o) => o.setName('timezone').setDescription('e.g. Europe/Berlin (default UTC)'))
      .addStringOption((o) =>
        o.setName('empty').setDescription('Stop after the channel is empty this many minutes (default 3)'),
      ),
  )
  .toJSON();

const ids = (text: string): string[] => [...text.matchAll(/\d{1,25}/g)].map((m) => m[0]);

function describe(s: ServerSettings): string {
  const rule = (r: AutoRecordRule) =>
    `<#${r.channel_id}> from ${r.min_members} member${r.min_members === 1 ? '' : 's'}${r.from ? ` between ${r.from} and ${r.to} (${r.timezone})` : ''}, stops after ${r.empty_minutes} min empty`;
  return [
    `**Consent**: ${s.consent_mode === 'opt_in' ? 'opt in (only members who press Record me)' : 'announce (everyone unless they opt out)'}`,
    `**Announcements**: ${s.announcement_channel_id ? `<#${s.announcement_channel_id}>` : 'where /start runs'}`,
    `**Default group**: ${s.default_group_id ? 'set' : 'none'}`,
    `**Language**: ${s.language ?? 'the provider decides'}`,
    `**Who may start**: ${s.starter_roles.length ? s.starter_roles.map((r) => `<@&${r}>`).join(', ') : 'anyone with a Chronicler account'}`,
    `**Auto-record**: ${s.auto_record.length ? s.auto_record.map(rule).join('; ') : 'off'}`,
  ].join('\n');
}

/** The change a subcommand asks for; a string is a refusal to show. */
async function changeOf(core: BotCore, i: Cmd, current: ServerSettings, editorId: string | null) {
  const sub = i.options.getSubcommand();
  const text = (name: string) => i.options.getString(name)?.trim() || null;
  switch (sub) {
    case 'consent':
      return { consent_mode: text('mode') === 'opt_in' ? 'opt_in' : 'announce' } as ServerSettingsChange;
    case 'channel':
      return { announcement_channel_id: ids(text('channel') ?? '')[0] ?? null };
    case 'language':
      return { language: text('code')?.toLowerCase() ?? null };
    case 'starters':
      return { starter_roles: ids(text('roles') ?? '') };
    case 'group': {
      const name = text('name');
      if (!name) return { default_group_id: null };
      if (!editorId) return `You need a Chronicler account to choose a group: ${core.signInHint()}.`;
      const found = await call(core.o.bus, findGroupsRpc, { owner_id: editorId, name, limit: 1 });
      if (!found.items[0]) return `You have no group named “${name}”. Nothing was changed.`;
      return { default_group_id: found.items[0].id };
    }
    case 'autorecord': {
      const channel = ids(text('channel') ?? '')[0];
      const members = Number(text('members'));
      if (!channel) return 'Name the voice channel (#channel or its id). Nothing was changed.';
      if (!Number.isInteger(members) || members < 0 || members > 99)
        return 'members must be a whole number from 0 to 99. Nothing was changed.';
      const others = current.auto_record.filter((r) => r.channel_id !== channel);
      if (members === 0) return { auto_record: others };
      const empty = text('empty') === null ? 3 : Number(text('empty'));
      if (!Number.isFinite(empty)) return 'empty must be a number of minutes. Nothing was changed.';
      const rule: AutoRecordRule = {
        channel_id: channel,
        min_members: members,
        group_id: null,
        owner_discord_id: i.user.id,
        from: text('from'),
        to: text('to'),
        timezone: text('timezone') ?? 'UTC',
        empty_minutes: empty,
      };
      return { auto_record: [...others, rule] };
    }
    default:
      return null;
  }
}

/** `/settings`: shows or changes this server's settings (stored by the group service). */
export async function settingsCommand(core: BotCore, interaction: Cmd): Promise<void> {
  if (!interaction.memberPermissions.has(PermissionFlagsBits.ManageGuild)) {
    await interaction.reply({
      content: 'Only members who can manage this server can change its recording settings.',
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const current = await core.settings.get(interaction.guildId);
  const editor = await core.owner(interaction.user.id);
  const change = await changeOf(core, interaction, current, editor?.id ?? null);
  if (typeof change === 'string') {
    await interaction.editReply(change);
    return;
  }
  if (!change) {
    await interaction.editReply(describe(current));
    return;
  }
  try {
    const saved = await call(core.o.bus, putServerSettingsRpc, {
      guild_id: interaction.guildId,
      editor_id: editor?.id ?? null,
      change,
    });
    await interaction.editReply(`Saved.\n${describe(saved)}`);
  } catch (err) {
    if (!ServiceError.is(err) || err.code !== 'bad_request') throw err;
    await interaction.editReply(`${err.message} Nothing was changed.`);
  }
}
