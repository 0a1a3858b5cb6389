import type { Interaction } from 'discord.js';
import { MessageFlags } from 'discord.js';
import type { BotCore } from '../core.ts';
import { askCommand } from './ask.ts';
import { joinCommand, leaveCommand, stopCommand } from './channel.ts';
import { helpText } from './definitions.ts';
import { consentCommand, statusCommand } from './member.ts';
import { isConsentButton, onConsentButton } from '../consent.ts';
import { settingsCommand } from './settings.ts';
import { isMyDataComponent, myDataCommand, myDataComponent } from './mydata.ts';
import { recapAutocomplete, recapCommand } from './recap.ts';
import { recordingAutocomplete, recordingCommand } from './recording.ts';
import { startAutocomplete, startCommand } from './start.ts';

/** Routes every interaction to its command; a command that throws answers the error to its caller. */
export async function onInteraction(core: BotCore, interaction: Interaction): Promise<void> {
  if (interaction.isAutocomplete()) {
    const choices =
      interaction.commandName === 'recap' || interaction.commandName === 'recording'
        ? await (interaction.commandName === 'recap' ? recapAutocomplete : recordingAutocomplete)(
            core,
            interaction,
          ).catch((err: unknown) => {
            core.log.warn({ err }, 'autocomplete failed');
            return [];
          })
        : interaction.commandName === 'start' || interaction.commandName === 'ask'
          ? await startAutocomplete(
              core,
              interaction.user.id,
              String(interaction.options.getFocused() ?? ''),
            ).catch((err: unknown) => {
              core.log.warn({ err }, 'autocomplete failed');
              return [];
            })
          : [];
    await interaction.respond(choices).catch((err: unknown) => core.log.warn({ err }, 'autocomplete failed'));
    return;
  }
  if (interaction.isButton() && isConsentButton(interaction.customId)) {
    await onConsentButton(core, interaction).catch(async (err: unknown) => {
      core.log.error({ err }, 'consent button failed');
      await interaction
        .reply({ content: 'Your choice was not saved; try again.', flags: MessageFlags.Ephemeral })
        .catch(() => {});
    });
    return;
  }
  if (
    (interaction.isButton() || interaction.isStringSelectMenu()) &&
    isMyDataComponent(interaction.customId)
  ) {
    await myDataComponent(core, interaction).catch(async (err: unknown) => {
      core.log.error({ err, customId: interaction.customId }, 'component failed');
      const content = `Something went wrong: ${err instanceof Error ? err.message : String(err)}`;
      await (
        interaction.deferred || interaction.replied
          ? interaction.editReply({ content, components: [] })
          : interaction.reply({ content, flags: MessageFlags.Ephemeral })
      ).catch(() => {});
    });
    return;
  }
  if (!interaction.isChatInputCommand()) return;
  const log = core.log.child({
    command: interaction.commandName,
    guildId: interaction.guildId,
    userId: interaction.user.id,
  });
  try {
    if (!interaction.inCachedGuild()) {
      await interaction.reply({
        content:
          interaction.commandName === 'help'
            ? helpText(core.o.publicUrl)
            : 'Use this command in a server, next to its voice channels.',
        flags: MessageFlags.Ephemeral,
      });
      return;
    }
    switch (interaction.commandName) {
      case 'join':
        return await joinCommand(core, interaction);
      case 'start':
        return await startCommand(core, interaction, log);
      case 'stop':
        return await stopCommand(core, interaction);
      case 'leave':
        return await leaveCommand(core, interaction);
      case 'status':
        return await statusCommand(core, interaction);
      case 'help':
        await interaction.reply({ content: helpText(core.o.publicUrl), flags: MessageFlags.Ephemeral });
        return;
      case 'settings':
        return await settingsCommand(core, interaction);
      case 'offrecord':
      case 'onrecord':
        return await consentCommand(core, interaction, interaction.commandName === 'offrecord');
      case 'mydata':
        return await myDataCommand(core, interaction);
      case 'recap':
        return await recapCommand(core, interaction);
      case 'recording':
        return await recordingCommand(core, interaction);
      case 'ask':
        return await askCommand(core, interaction);
      default:
        await interaction.reply({ content: 'Unknown command.', flags: MessageFlags.Ephemeral });
    }
  } catch (err) {
    log.error({ err }, 'command failed');
    const content = `Something went wrong: ${err instanceof Error ? err.message : String(err)}`;
    const send =
      interaction.deferred || interaction.replied
        ? interaction.editReply({ content })
        : interaction.reply({ content, flags: MessageFlags.Ephemeral });
    await send.catch(() => {});
  }
}
