import {
  ASK_REPLY_TIMEOUT_MS,
  chatAskRpc,
  findGroupsRpc,
  formatOffset,
  withoutOfflineMarker,
  isOfflineAiText,
  type AskAnswer,
} from '@chronicler/contracts';
import { call, ServiceError } from '@chronicler/kit';
import { MessageFlags, type ChatInputCommandInteraction } from 'discord.js';
import type { BotCore } from '../core.ts';
import { ownGroup } from './start.ts';

/** Discord's limits on an embed's parts. */
const TITLE_MAX = 256;
const DESCRIPTION_MAX = 4096;
const FIELD_MAX = 1024;

/** The app's own paths as absolute links (PUBLIC_URL); without it, the link text alone. */
function absolute(markdown: string, publicUrl: string | null): string {
  return markdown.replace(/\[([^\]]*)\]\((\/[^)\s]*)\)/g, (_all, text: string, path: string) =>
    publicUrl ? `[${text}](${publicUrl}${path})` : text,
  );
}

/** Whole lines of `text` within `max` characters, '…' when some were left out. */
function cutLines(text: string, max: number): string {
  if (text.length <= max) return text;
  const lines = text.split('\n');
  let out = '';
  for (const line of lines) {
    if (out.length + line.length + 3 > max) break;
    out += `${out ? '\n' : ''}${line}`;
  }
  return `${out || text.slice(0, max - 2)}\n…`;
}

/** The answer as an embed: the question, the answer (quotes offline), the cited moments as links. */
function askEmbed(question: string, answer: AskAnswer, publicUrl: string | null) {
  const offline = isOfflineAiText(answer.answer);
  const text = absolute(withoutOfflineMarker(answer.answer), publicUrl);
  const moments = answer.citations.map((c, i) => {
    const at = c.seconds === null ? `line ${c.line + 1}` : formatOffset(c.seconds);
    const label = `${c.transcript_name} at ${at}`;
    return `${i + 1}. ${publicUrl ? `[${label}](${publicUrl}${c.link})` : label}`;
  });
  return {
    title: question.length > TITLE_MAX ? `${question.slice(0, TITLE_MAX - 1)}…` : question,
    description: cutLines(text, DESCRIPTION_MAX),
    fields: moments.length ? [{ name: 'Cited moments', value: cutLines(moments.join('\n'), FIELD_MAX) }] : [],
    footer: {
      text: offline
        ? 'Quoted from your sessions (no AI model is connected). Each link opens the session at that moment.'
        : 'Each link opens the session at that moment.',
    },
  };
}

/**
 * `/ask <question> [group]`: a question across every session of the caller's campaign: the
 * group named, else the server's default group when it is the caller's. Answered to the caller
 * only (a campaign's notes may hold what the players should not read yet), with links.
 */
export async function askCommand(
  core: BotCore,
  interaction: ChatInputCommandInteraction<'cached'>,
): Promise<void> {
  const user = await core.owner(interaction.user.id);
  if (!user) {
    await interaction.reply({
      content: `Questions are asked of your own campaigns: ${core.signInHint()} first.`,
      flags: MessageFlags.Ephemeral,
    });
    return;
  }
  await interaction.deferReply({ flags: MessageFlags.Ephemeral });
  const question = interaction.options.getString('question', true);
  const named = interaction.options.getString('group')?.trim() || null;
  let group: { id: string; name: string } | null = null;
  if (named) {
    const found = await call(core.o.bus, findGroupsRpc, { owner_id: user.id, name: named, limit: 1 });
    group = found.items[0] ?? null;
    if (!group) {
      await interaction.editReply(`You have no group named “${named}”.`);
      return;
    }
  } else {
    const settings = await core.settings.get(interaction.guildId);
    group = settings.default_group_id ? await ownGroup(core, user.id, settings.default_group_id) : null;
    if (!group) {
      await interaction.editReply(
        'Name one of your groups (`/ask question: … group: …`), or set this server’s default group in its settings.',
      );
      return;
    }
  }
  try {
    const answer = await call(
      core.o.bus,
      chatAskRpc,
      { owner_id: user.id, group_id: group.id, question },
      { timeoutMs: ASK_REPLY_TIMEOUT_MS },
    );
    await interaction.editReply({
      embeds: [askEmbed(question.trim(), answer, core.o.publicUrl)],
      allowedMentions: { parse: [] },
    });
  } catch (err) {
    // The product's words for a refused question (empty, too long, over the AI limit).
    if (err instanceof ServiceError && err.code !== 'internal') {
      await interaction.editReply(err.message);
      return;
    }
    throw err;
  }
}
