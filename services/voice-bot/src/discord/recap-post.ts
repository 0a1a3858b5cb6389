import {
  claimRecapRpc,
  guildRecapsRpc,
  recapTargetRpc,
  summaryReadyEvent,
  TRANSCRIPT_EVENTS_STREAM,
  transcriptEventsStream,
  type Recap,
} from '@chronicler/contracts';
import { call, consume, type Consumer } from '@chronicler/kit';
import { Routes, type APIEmbed } from 'discord.js';
import type { BotCore } from './core.ts';
import type { SessionState } from './state.ts';

/** Discord's embed limits (characters). */
export const EMBED_LIMITS = {
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  total: 6000,
} as const;

/** How much of the story the embed tells: a few lines, not the whole recap. */
const STORY_LINES = 6;
const STORY_CHARS = 1200;

/** Cut at a word boundary with an ellipsis when longer than `max`. */
function clip(text: string, max: number): string {
  const t = text.trim();
  if (t.length <= max) return t;
  const cut = t.slice(0, max - 1);
  const space = cut.search(/\s\S*$/);
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The recap's markdown by section ("### Story" → its text); text before any heading is the story. */
function sections(markdown: string): Map<string, string> {
  const out = new Map<string, string>();
  let heading = 'story';
  for (const line of markdown.split('\n')) {
    const h = /^#{1,6}\s+(.*)$/.exec(line.trim());
    if (h) {
      heading = h[1]!.trim().toLowerCase();
      continue;
    }
    out.set(heading, `${out.get(heading) ?? ''}${line}\n`);
  }
  return out;
}

/** Links to moments of the session made absolute (or plain text without a public address). */
function absoluteLinks(text: string, publicUrl: string | null): string {
  return text.replace(/\[([^\]]+)\]\((\/[^)\s]*)\)/g, (_m, label: string, href: string) =>
    publicUrl ? `[${label}](${publicUrl}${href})` : label,
  );
}

/**
 * The embed of a session's recap: its name (linked to the session), the story in a few lines,
 * its open threads when the recap has them, the date; within every one of Discord's limits.
 */
export function recapEmbed(
  recap: Pick<Recap, 'name' | 'summary' | 'started_at'>,
  url: string,
  publicUrl: string | null,
): APIEmbed {
  const parts = sections(absoluteLinks(recap.summary, publicUrl));
  const storyKey =
    [...parts.keys()].find((k) => k === 'story' || k.startsWith('story')) ?? [...parts.keys()][0];
  const storyLines = (storyKey ? parts.get(storyKey)! : recap.summary)
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, STORY_LINES);
  const threadsKey = [...parts.keys()].find((k) => /open threads|hooks|loose ends|unresolved/.test(k));
  const threads = (threadsKey ? parts.get(threadsKey)! : '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^-?\s*none\.?$/i.test(l));
  const footer = clip(`Chronicler · ${recap.started_at.slice(0, 10)}`, EMBED_LIMITS.footer);
  const title = clip(recap.name || 'Session recap', EMBED_LIMITS.title);
  const fields: NonNullable<APIEmbed['fields']> = [];
  if (threads.length > 0) {
    fields.push({ name: 'Open threads', value: clip(threads.join('\n'), EMBED_LIMITS.fieldValue) });
  }
  fields.push({ name: 'Full session', value: clip(url, EMBED_LIMITS.fieldValue) });
  const used = title.length + footer.length + fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
  const room = Math.min(EMBED_LIMITS.description, STORY_CHARS, EMBED_LIMITS.total - used);
  const description = clip(storyLines.join('\n') || 'No story was told.', Math.max(1, room));
  return {
    title,
    ...(/^https?:\/\//.test(url) ? { url } : {}),
    description,
    fields: fields.slice(0, EMBED_LIMITS.fields),
    footer: { text: footer },
  };
}

/** Kept with the session when its recording starts, so that any replica can post its recap later. */
export async function keepRecapTarget(core: BotCore, state: SessionState): Promise<void> {
  await call(core.o.bus, recapTargetRpc, {
    owner_id: state.owner_id,
    id: state.transcript_id,
    guild_id: state.guild_id,
    // The server's announcement channel when set, else where the recording started (chosen at /start).
    channel_id: state.text_channel_id,
  }).catch((err: unknown) =>
    core.log.warn(
      { err, transcriptId: state.transcript_id },
      'recap channel not kept: no recap will be posted',
    ),
  );
}

/** Posts an embed in a channel; throws when Discord refuses it. */
async function postEmbed(core: BotCore, channelId: string, embed: APIEmbed): Promise<void> {
  await core.client.rest.post(Routes.channelMessages(channelId), {
    body: { embeds: [embed], allowed_mentions: { parse: [] } },
  });
}

/**
 * The recap of every bot-recorded session posted back to Discord once its summary is stored
 * (`evt.transcript.summary-ready`), once per session: the transcript service's claim decides
 * (across replicas and restarts); a post Discord refuses is released and tried again.
 */
export async function startRecapPosts(core: BotCore): Promise<Consumer> {
  await core.o.bus.ensureStream(transcriptEventsStream);
  return consume(
    core.o.bus,
    { stream: TRANSCRIPT_EVENTS_STREAM, durable: 'voice-bot-recaps', maxDeliver: 5, backoffMs: 5_000 },
    summaryReadyEvent,
    async ({ transcript_id }) => {
      const { claimed, recap } = await call(core.o.bus, claimRecapRpc, { id: transcript_id });
      if (!claimed || !recap) return;
      try {
        await postEmbed(
          core,
          recap.channel_id,
          recapEmbed(recap, core.sessionUrl(recap.transcript_id), core.o.publicUrl),
        );
        core.log.info({ transcriptId: transcript_id, channelId: recap.channel_id }, 'recap posted');
      } catch (err) {
        await call(core.o.bus, claimRecapRpc, { id: transcript_id, release: true }).catch(() => undefined);
        throw err;
      }
    },
  );
}

/** The owner's recorded sessions of a server (newest first), by name or id, for /recap. */
export function guildRecaps(
  core: BotCore,
  ownerId: string,
  guildId: string,
  opts: { q?: string; id?: string; limit?: number },
): Promise<Recap[]> {
  return call(core.o.bus, guildRecapsRpc, { owner_id: ownerId, guild_id: guildId, ...opts });
}
