import {
  InteractionContextType,
  SlashCommandBuilder,
  type RESTPostAPIChatInputApplicationCommandsJSONBody,
} from 'discord.js';
import { ASK_QUESTION_MAX_CHARS } from '@chronicler/contracts';
import { SETTINGS_COMMAND } from './settings.ts';

/**
 * The slash commands, as registered: join, start [group], stop, leave, status and help, which
 * every table uses; offrecord and onrecord (consent), recap, recording, ask and mydata; and settings.
 */
export const COMMANDS: RESTPostAPIChatInputApplicationCommandsJSONBody[] = [
  new SlashCommandBuilder()
    .setName('join')
    .setDescription('Join your voice channel (does not record yet)')
    .setContexts(InteractionContextType.Guild),
  new SlashCommandBuilder()
    .setName('start')
    .setDescription('Start transcribing your voice channel into your Chronicler account')
    .setContexts(InteractionContextType.Guild)
    .addStringOption((o) =>
      o
        .setName('group')
        .setDescription('One of your Chronicler groups: the session is filed there')
        .setRequired(false)
        .setAutocomplete(true)
        .setMaxLength(100),
    )
    .addStringOption((o) =>
      o.setName('name').setDescription('Session name (default: Live Transcription)').setMaxLength(200),
    ),
  new SlashCommandBuilder()
    .setName('stop')
    .setDescription('Stop transcribing and save the session')
    .setContexts(InteractionContextType.Guild),
  new SlashCommandBuilder()
    .setName('leave')
    .setDescription('Leave the voice channel (stops and saves any transcription)')
    .setContexts(InteractionContextType.Guild),
  new SlashCommandBuilder()
    .setName('status')
    .setDescription('What the bot is doing in this server')
    .setContexts(InteractionContextType.Guild),
  new SlashCommandBuilder().setName('help').setDescription('How to use the Chronicler bot'),
  new SlashCommandBuilder()
    .setName('offrecord')
    .setDescription('Pause recording your own voice (nothing you say is captured)')
    .setContexts(InteractionContextType.Guild),
  new SlashCommandBuilder()
    .setName('onrecord')
    .setDescription('Resume recording your own voice')
    .setContexts(InteractionContextType.Guild),
  new SlashCommandBuilder()
    .setName('recap')
    .setDescription('Post the recap of one of your recorded sessions of this server (the latest by default)')
    .setContexts(InteractionContextType.Guild)
    .addStringOption((o) =>
      o
        .setName('session')
        .setDescription('One of your sessions recorded here')
        .setRequired(false)
        .setAutocomplete(true)
        .setMaxLength(100),
    ),
  new SlashCommandBuilder()
    .setName('recording')
    .setDescription(
      'Download links for a recording of this server (its owner or Manage Server; the latest by default)',
    )
    .setContexts(InteractionContextType.Guild)
    .addStringOption((o) =>
      o
        .setName('session')
        .setDescription('A session recorded here')
        .setRequired(false)
        .setAutocomplete(true)
        .setMaxLength(100),
    ),
  new SlashCommandBuilder()
    .setName('ask')
    .setDescription('Ask your campaign a question: answered from all its sessions, with links to the moments')
    .setContexts(InteractionContextType.Guild)
    .addStringOption((o) =>
      o
        .setName('question')
        .setDescription('What to ask')
        .setRequired(true)
        .setMinLength(1)
        .setMaxLength(ASK_QUESTION_MAX_CHARS),
    )
    .addStringOption((o) =>
      o
        .setName('group')
        .setDescription('One of your Chronicler groups (default: the server’s default group)')
        .setRequired(false)
        .setAutocomplete(true)
        .setMaxLength(100),
    ),
  new SlashCommandBuilder()
    .setName('mydata')
    .setDescription('What was recorded of you in this server, and delete it')
    .setContexts(InteractionContextType.Guild),
].map((b) => b.toJSON());
COMMANDS.push(SETTINGS_COMMAND);

export function helpText(publicUrl: string | null): string {
  return [
    '**Chronicler** turns your voice sessions into transcripts, summaries and notes.',
    '',
    '`/join` — join your voice channel',
    '`/start [group] [name]` — start transcribing; name one of your Chronicler groups to file the session there',
    '`/stop` — stop transcribing and save the session (it is then summarised)',
    '`/leave` — leave the voice channel (also stops and saves)',
    '`/status` — what is being recorded, and where to read it live',
    '`/offrecord` / `/onrecord` — pause or resume recording your own voice',
    '`/settings` — the server’s recording settings (Manage Server)',
    '`/recap [session]` — post the recap of one of your recorded sessions here (the latest by default)',
    '`/recording [session]` — download links (per speaker Ogg/FLAC, everyone mixed, a zip) for a session recorded here; its owner or Manage Server',
    '`/ask question [group]` — ask your campaign; the answer cites the moments it comes from (only you see it)',
    '`/mydata` — what was recorded of you in this server; delete your part of a session',
    '`/help` — this message',
    '',
    publicUrl
      ? `The person who runs /start owns the transcript and needs a Chronicler account: sign in with Discord at ${publicUrl}/login.`
      : 'The person who runs /start owns the transcript and needs a Chronicler account (signed in with Discord).',
  ].join('\n');
}
