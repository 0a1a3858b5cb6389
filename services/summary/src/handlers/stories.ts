import {
  CHARACTER_NAME_MAX,
  contentVersionsRpc,
  getCodexRpc,
  getTranscriptRpc,
  tooLongMessage,
  type CharacterRecap,
  type characterRecapRpc,
  type CodexEntry,
  type Previously,
  type previouslyRpc,
  type RpcRequest,
} from '@chronicler/contracts';
import type { AiEngine, StoryEntry } from '@chronicler/ai';
import { call, ServiceError, type Bus, type Logger } from '@chronicler/kit';
import { createHash } from 'node:crypto';
import { whoIsWho } from '../codex/keeper.ts';
import type { SummaryStore } from '../db/store.ts';
import { asServiceError } from '../errors.ts';
import { findGroup, groupSessions } from '../sources.ts';

export interface StoryDeps {
  bus: Bus;
  engine: AiEngine;
  store: SummaryStore;
  logger: Logger;
}

/** Sessions read at once for a character's story. */
const READ_CONCURRENCY = 3;

const asStory = (e: CodexEntry): StoryEntry => ({
  kind: e.kind,
  name: e.name,
  aliases: e.aliases,
  description: e.description,
});

/** The entries an audience reads, and the ones it may not (for players: those kept for the game master). */
async function codexFor(bus: Bus, ownerId: string, groupId: string, audience: 'gm' | 'players') {
  const { entries } = await call(bus, getCodexRpc, { owner_id: ownerId, id: groupId });
  const readable = audience === 'players' ? entries.filter((e) => e.visibility === 'players') : entries;
  const secrets = audience === 'players' ? entries.filter((e) => e.visibility !== 'players') : [];
  return { readable, secrets };
}

/**
 * The story made once per version of what it is made from (the model, the sessions' versions,
 * the codex as the audience reads it): a shared link opened again and again asks the model once.
 */
async function once(
  { store, logger }: Pick<StoryDeps, 'store' | 'logger'>,
  ownerId: string,
  parts: unknown[],
  make: () => Promise<string>,
) {
  const key = createHash('sha256').update(JSON.stringify(parts)).digest('hex');
  const stored = await store.story(ownerId, key);
  if (stored !== null) return stored;
  const text = await make().catch((err: unknown) => {
    throw asServiceError(err, logger.child({ owner_id: ownerId, story: parts[0] }));
  });
  await store.setStory(ownerId, key, text);
  return text;
}

const named = (text: string, entries: CodexEntry[]) =>
  entries.filter((e) =>
    [e.name, ...e.aliases].some((n) => n.length > 1 && text.toLowerCase().includes(n.toLowerCase())),
  );

/** svc.summary.character-recap: one character's story, from what their player witnessed. */
export const characterRecap =
  ({ bus, engine, store, logger }: StoryDeps) =>
  async (req: RpcRequest<typeof characterRecapRpc>): Promise<CharacterRecap> => {
    const wanted = req.character.replace(/\s+/g, ' ').trim();
    if (!wanted) throw new ServiceError('bad_request', 'Character cannot be empty.');
    if (wanted.length > CHARACTER_NAME_MAX) {
      throw new ServiceError('bad_request', tooLongMessage('Character', CHARACTER_NAME_MAX));
    }
    const group = await findGroup(bus, req.owner_id, req.id);
    const characters = await whoIsWho(bus, req.owner_id, req.id);
    const link = characters.find((c) => c.character.toLowerCase() === wanted.toLowerCase());
    if (!link) {
      const known = [...new Set(characters.map((c) => c.character))];
      throw new ServiceError(
        'not_found',
        `No character named ${wanted} in this campaign.` +
          (known.length
            ? ` Its characters: ${known.join(', ')}.`
            : ' Link its speakers to characters in Who Is Who first.'),
      );
    }
    const { sessions } = await call(bus, contentVersionsRpc, { owner_id: req.owner_id, group_id: req.id });
    const { readable, secrets } = await codexFor(bus, req.owner_id, req.id, req.audience);
    const texts: string[] = [];
    for (let i = 0; i < sessions.length; i += READ_CONCURRENCY) {
      const batch = sessions.slice(i, i + READ_CONCURRENCY);
      const read = await Promise.all(
        batch.map((s) =>
          call(bus, getTranscriptRpc, { owner_id: req.owner_id, id: s.id }, { timeoutMs: 30_000 }),
        ),
      );
      texts.push(...read.map((t) => t.content));
    }
    const input = {
      campaign: group.name,
      character: link.character,
      player: link.speaker,
      sessions: sessions.map((s, i) => ({
        id: s.id,
        name: s.name,
        date: s.session_timestamp,
        transcript: texts[i]!,
      })),
      entries: readable.map(asStory),
      secrets: secrets.map(asStory),
      characters,
    };
    const text = await once(
      { store, logger },
      req.owner_id,
      ['character', engine.model, req.id, link, req.audience, sessions, input.entries, input.secrets],
      () =>
        engine.characterRecap(
          { userId: req.owner_id, type: 'character_recap', automatic: req.audience === 'players' },
          input,
        ),
    );
    const speaks = new RegExp(
      `^(?:\\[[^\\]]*\\]\\s*)?${link.speaker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:`,
      'm',
    );
    const present = new Set(sessions.filter((_, i) => speaks.test(texts[i]!)).map((s) => s.id));
    return {
      group_id: req.id,
      character: link.character,
      player: link.speaker,
      text,
      sessions: sessions.map((s) => ({
        id: s.id,
        name: s.name,
        session_timestamp: s.session_timestamp,
        present: present.has(s.id),
      })),
      entries: named(text, readable)
        .filter((e) => e.kind !== 'thread')
        .map((e) => witnessed(e, text, present)),
    };
  };

/**
 * An entry as one character's player knows it: the other names the story itself uses, and the
 * moments of the sessions they were at. A merged entry's other names ("Oskar", merged into
 * "Hedda Vorn" by the game master) and the sessions the player missed stay out of their story.
 */
function witnessed(e: CodexEntry, text: string, present: Set<string>): CodexEntry {
  const lower = text.toLowerCase();
  const seen = (s: CodexEntry['first_seen']) => (s && present.has(s.transcript_id) ? s : null);
  return {
    ...e,
    aliases: e.aliases.filter((a) => lower.includes(a.toLowerCase())),
    mentions: e.mentions.filter((m) => present.has(m.transcript_id)),
    first_seen: seen(e.first_seen),
    last_seen: seen(e.last_seen),
  };
}

/** svc.summary.previously: where the next session starts from. */
export const previously =
  ({ bus, engine, store, logger }: StoryDeps) =>
  async (req: RpcRequest<typeof previouslyRpc>): Promise<Previously> => {
    const group = await findGroup(bus, req.owner_id, req.id);
    const all = (await groupSessions(bus, req.owner_id, req.id))
      .filter((s) => s.status === 'ended')
      .sort((a, b) => a.session_timestamp.localeCompare(b.session_timestamp) || a.id.localeCompare(b.id));
    const recent = all.slice(-3);
    const last = recent.at(-1);
    const { readable, secrets } = await codexFor(bus, req.owner_id, req.id, req.audience);
    const inLast = (e: CodexEntry) =>
      last !== undefined && e.mentions.some((m) => m.transcript_id === last.id);
    const threads = readable.filter((e) => e.kind === 'thread' && inLast(e));
    const entries = readable
      .filter((e) => e.kind !== 'thread' && inLast(e))
      .sort((a, b) => b.mention_count - a.mention_count)
      .slice(0, 12);
    // The offline engine quotes it when the last session has no summary the reader may read.
    const lastTranscript = last
      ? (await call(bus, getTranscriptRpc, { owner_id: req.owner_id, id: last.id }, { timeoutMs: 30_000 }))
          .content
      : '';
    const characters = await whoIsWho(bus, req.owner_id, req.id).catch(() => []);
    const input = {
      campaign: group.name,
      sessions: recent.map((s) => ({
        id: s.id,
        name: s.name,
        date: s.session_timestamp,
        summary: s.summary,
      })),
      lastTranscript,
      threads: threads.map(asStory),
      entries: entries.map(asStory),
      secrets: secrets.map(asStory),
      characters,
    };
    const text = await once(
      { store, logger },
      req.owner_id,
      [
        'previously',
        engine.model,
        req.id,
        req.audience,
        input.sessions,
        lastTranscript.length,
        input.threads,
        input.entries,
        input.secrets,
      ],
      () =>
        engine.previously(
          { userId: req.owner_id, type: 'previously', automatic: req.audience === 'players' },
          input,
        ),
    );
    return {
      group_id: req.id,
      text,
      session: last ? { id: last.id, name: last.name, session_timestamp: last.session_timestamp } : null,
      entries,
    };
  };
