import { exportTranscriptRpc, listActiveTranscriptsRpc } from '@chronicler/contracts';
import { call } from '@chronicler/kit';
import { DiscordAPIError, Routes } from 'discord.js';
import type { BotCore } from './core.ts';
import type { SessionState } from './state.ts';

/**
 * Discord's upload limit for a bot in a server without boosts (10 MiB since 2024; boosted
 * servers allow more, but the bot cannot count on them).
 */
const UPLOAD_LIMIT_BYTES = 10 * 1024 * 1024;
/** How long the transcript service may take to store the session's end before the post gives up. */
const STORED_WAIT_MS = 60_000;
/** Discord: Missing Permissions (here Attach Files) and Request entity too large. */
const MISSING_PERMISSIONS = 50013;
const ENTITY_TOO_LARGE = 40005;

/**
 * What tables expect of a recording bot (Craig, Archivist): when a recording ends (/stop,
 * /leave, an auto-record's stop, a limit), its transcript as a file in the channel where it
 * was announced, Markdown as the web app exports it (svc.transcript.export: speakers' names,
 * times, the notes), once the transcript service has stored its end. A transcript Discord will
 * not take (too large, no Attach Files permission) is said in words, with the link.
 */
export async function postTranscript(core: BotCore, state: SessionState): Promise<void> {
  const tid = state.transcript_id;
  const log = core.log.child({ transcriptId: tid, channelId: state.text_channel_id });
  const link = core.sessionUrl(tid);
  try {
    if (!(await stored(core, state))) {
      log.warn('the session end is not stored yet; its transcript file is not posted');
      return;
    }
    const file = await call(core.o.bus, exportTranscriptRpc, {
      owner_id: state.owner_id,
      id: tid,
      format: 'md',
    });
    const data = Buffer.from(file.body, file.encoding === 'base64' ? 'base64' : 'utf8');
    if (data.length > UPLOAD_LIMIT_BYTES) {
      await core.post(
        state.text_channel_id,
        `📄 The transcript of “${state.name}” is too large to attach here (${megabytes(data.length)} MB; Discord takes ${megabytes(UPLOAD_LIMIT_BYTES)} MB): ${link}`,
      );
      return;
    }
    await core.client.rest.post(Routes.channelMessages(state.text_channel_id), {
      body: {
        content: `📄 Transcript of “${state.name}”: ${link}`,
        attachments: [{ id: 0, filename: file.filename, description: `Transcript of ${state.name}` }],
        allowed_mentions: { parse: [] },
      },
      files: [{ name: file.filename, data, contentType: file.content_type }],
    });
  } catch (err) {
    const code = err instanceof DiscordAPIError ? err.code : null;
    if (code === MISSING_PERMISSIONS || code === ENTITY_TOO_LARGE) {
      await core.post(
        state.text_channel_id,
        code === MISSING_PERMISSIONS
          ? `📄 I could not attach the transcript of “${state.name}”: I need the Attach Files permission in this channel. It is here: ${link}`
          : `📄 The transcript of “${state.name}” is too large to attach here: ${link}`,
      );
      return;
    }
    log.warn({ err }, 'transcript file not posted');
  }
}

const megabytes = (bytes: number): string => (bytes / (1024 * 1024)).toFixed(1);

/** Waits until the transcript service no longer lists the session as recording (its end is stored). */
async function stored(core: BotCore, state: SessionState): Promise<boolean> {
  const until = Date.now() + STORED_WAIT_MS;
  for (;;) {
    const active = await call(core.o.bus, listActiveTranscriptsRpc, { owner_id: state.owner_id }).catch(
      () => null,
    );
    if (active && !active.some((s) => s.transcript_id === state.transcript_id)) return true;
    if (Date.now() >= until) return false;
    await new Promise((r) => setTimeout(r, 500));
  }
}
