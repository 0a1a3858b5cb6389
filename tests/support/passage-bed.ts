// The transcript service's passage search on its own: its migrations in a throwaway PGlite
// database (the search index and its triggers included) and the real svc.transcript.passages
// handler, for the evaluation and for engine tests that need what the service would find.
import type { ChatMessage, PassagesResult, RpcRequest, passagesRpc } from '@chronicler/contracts';
import type { AiEngine } from '../../services/shared/ai/src/engine.ts';
import { openServiceTestbed } from '@chronicler/kit/testing';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { PassageStore } from '../../services/transcript/src/db/passage-store.ts';
import { passages } from '../../services/transcript/src/handlers/passages.ts';
import { repoRoot } from './system.ts';

export interface PassageBed {
  readonly ownerId: string;
  /** Stores a session (its lines indexed by the triggers, as every write path does); its id. */
  add(session: { name: string; content: string; groupId?: string; date?: string }): Promise<string>;
  find(req: Omit<RpcRequest<typeof passagesRpc>, 'owner_id'>): Promise<PassagesResult>;
  /** What the chat service asks for one session's question: as much as the engine's plan says. */
  findFor(
    engine: Pick<AiEngine, 'retrievalPlan'>,
    transcriptId: string,
    question: string,
    history: ChatMessage[],
  ): Promise<PassagesResult>;
  close(): Promise<void>;
}

export async function openPassageBed(): Promise<PassageBed> {
  const bed = await openServiceTestbed({
    schema: 'transcript',
    migrationsDir: path.join(repoRoot, 'services/transcript/migrations'),
  });
  const handler = passages(new PassageStore(bed.db, bed.schema));
  const ownerId = randomUUID();
  return {
    ownerId,
    async add(s) {
      const [row] = await bed.db.query<{ id: string }>(
        `insert into "${bed.schema}".transcripts (owner_id, group_id, name, session_timestamp, content)
         values ($1, $2, $3, $4, $5) returning id`,
        [ownerId, s.groupId ?? null, s.name, s.date ?? new Date().toISOString(), s.content],
      );
      return String(row!.id);
    },
    find: (req) => handler({ owner_id: ownerId, ...req }),
    findFor(engine, transcriptId, question, history) {
      const plan = engine.retrievalPlan({ question, history, scope: 'session' });
      return handler({
        owner_id: ownerId,
        q: question,
        transcript_id: transcriptId,
        limit: plan.limit,
        max_chars: plan.maxChars,
        whole_within: plan.wholeWithin,
      });
    },
    close: () => bed.close(),
  };
}
