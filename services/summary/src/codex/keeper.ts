import {
  applyCodexRpc,
  contentVersionsRpc,
  getCodexRpc,
  getGroupCharactersRpc,
  getTranscriptRpc,
  type CodexEntry,
  type ContentVersion,
  type KnownEntry,
} from '@chronicler/contracts';
import type { AiEngine, SpeakerCharacter } from '@chronicler/ai';
import { call, type Bus, type Coordination, type Logger } from '@chronicler/kit';

/** Longer than reading one long session with a model: a lost holder frees the version eventually. */
const LOCK_TTL_MS = 15 * 60 * 1000;

/** The codex so far as an extraction is given it. */
const knownOf = (entries: CodexEntry[]): KnownEntry[] =>
  entries.map((e) => ({
    kind: e.kind,
    name: e.name,
    aliases: e.aliases,
    description: e.description,
    sessions: new Set(e.mentions.map((m) => m.transcript_id)).size,
    confirmed: e.edited,
    hidden: e.hidden,
  }));

/** The Who Is Who map as the AI reads it: the user's links, then the suggestions for the rest. */
export async function whoIsWho(bus: Bus, ownerId: string, groupId: string): Promise<SpeakerCharacter[]> {
  const map = await call(
    bus,
    getGroupCharactersRpc,
    { owner_id: ownerId, id: groupId },
    { timeoutMs: 30_000 },
  );
  return [...map.links, ...map.inferred.map(({ speaker, character }) => ({ speaker, character }))];
}

export interface RefreshState {
  pending: number;
  read: number;
  total: number;
}

/**
 * Keeps each campaign's codex up to date with its sessions: reads every ended session that the
 * codex has not read at its current version (the transcript service tells versions without
 * sending the texts), oldest first, each given the codex so far, and forgets sessions that left
 * the campaign. One reading per version: the version key names the engine's model too, a coord
 * lock per version keeps two replicas from reading the same one, and the group service ignores a
 * version it already applied. Readings of one campaign in this process run one at a time.
 */
export class CodexKeeper {
  private readonly running = new Map<string, Promise<void>>();

  constructor(private readonly deps: { bus: Bus; coord: Coordination; engine: AiEngine; logger: Logger }) {}

  /** What is left to read; with `wait`, reads it first. */
  async refresh(ownerId: string, groupId: string, wait: boolean): Promise<RefreshState> {
    const state = await this.state(ownerId, groupId);
    if (state.todo.length > 0 || state.removed.length > 0) {
      const work = this.run(ownerId, groupId);
      if (wait) {
        await work;
        return { pending: 0, read: state.total, total: state.total };
      }
      work.catch(() => undefined);
    }
    return { pending: state.todo.length, read: state.total - state.todo.length, total: state.total };
  }

  /** The campaign of a session, read up to date (for events that name a session only). */
  async refreshSession(ownerId: string, transcriptId: string): Promise<void> {
    const { group_id } = await call(this.deps.bus, contentVersionsRpc, {
      owner_id: ownerId,
      transcript_id: transcriptId,
    });
    if (group_id) await this.run(ownerId, group_id);
  }

  private version(s: ContentVersion): string {
    return `${this.deps.engine.model}:${s.version}`;
  }

  private async state(ownerId: string, groupId: string) {
    const [versions, codex] = await Promise.all([
      call(this.deps.bus, contentVersionsRpc, { owner_id: ownerId, group_id: groupId }),
      call(this.deps.bus, getCodexRpc, { owner_id: ownerId, id: groupId, hidden: true }),
    ]);
    const read = new Map(codex.sources.map((s) => [s.transcript_id, s.version]));
    const ids = new Set(versions.sessions.map((s) => s.id));
    return {
      todo: versions.sessions.filter((s) => read.get(s.id) !== this.version(s)),
      removed: codex.sources.map((s) => s.transcript_id).filter((id) => !ids.has(id)),
      total: versions.sessions.length,
    };
  }

  /** One reading of the campaign at a time in this process; a second asker joins it. */
  private run(ownerId: string, groupId: string): Promise<void> {
    const key = `${ownerId}:${groupId}`;
    const mine = this.running.get(key);
    if (mine) return mine;
    const work = this.readAll(ownerId, groupId)
      .catch((err: unknown) => {
        this.deps.logger.warn(
          { err, groupId },
          'the codex could not read every session; the next refresh tries again',
        );
        throw err;
      })
      .finally(() => this.running.delete(key));
    this.running.set(key, work);
    return work;
  }

  private async readAll(ownerId: string, groupId: string): Promise<void> {
    const { bus, coord, engine } = this.deps;
    const { todo, removed } = await this.state(ownerId, groupId);
    if (removed.length > 0) await call(bus, applyCodexRpc, { owner_id: ownerId, id: groupId, removed });
    if (todo.length === 0) return;
    const characters = await whoIsWho(bus, ownerId, groupId).catch(() => []);
    for (const s of todo) {
      const version = this.version(s);
      const lock = await coord.locks.acquire(`codex:${groupId}:${s.id}:${version}`, LOCK_TTL_MS);
      // Another replica reads this version now: its answer lands in the codex; nothing to do here.
      if (!lock) continue;
      try {
        const t = await call(bus, getTranscriptRpc, { owner_id: ownerId, id: s.id });
        const codex = await call(bus, getCodexRpc, { owner_id: ownerId, id: groupId, hidden: true });
        const found = await engine.extractCodex(
          { userId: ownerId, type: 'codex', automatic: true },
          { id: s.id, name: t.name, transcript: t.content, characters, known: knownOf(codex.entries) },
        );
        await call(bus, applyCodexRpc, {
          owner_id: ownerId,
          id: groupId,
          session: {
            transcript_id: s.id,
            version,
            name: s.name,
            session_timestamp: s.session_timestamp,
            found,
          },
        });
        this.deps.logger.info({ groupId, transcriptId: s.id, entries: found.length }, 'codex read a session');
      } finally {
        await lock.release().catch(() => false);
      }
    }
  }
}
