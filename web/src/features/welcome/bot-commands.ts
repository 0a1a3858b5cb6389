/** The voice bot's slash commands, as the getting-started page lists them. */
export const BOT_COMMANDS: ReadonlyArray<{ command: string; description: string }> = [
  { command: '/join', description: 'Join your current voice channel.' },
  {
    command: '/start [group]',
    description:
      'Start transcription. Optionally name one of your existing groups and the session is assigned to it automatically.',
  },
  { command: '/stop', description: 'Stop transcription and save the session.' },
  { command: '/leave', description: 'Leave the voice channel (this also stops transcription).' },
  { command: '/status', description: 'Show the current transcription status.' },
  { command: '/help', description: 'Show help for the bot and its commands.' },
];
