import {
  AiRateLimitedError,
  AiUnavailableError,
  groupCharacters,
  type AiEngine,
  type ChatMessage,
  type EditorContext,
} from '@chronicler/ai';
import {
  ADD_PREP_ITEMS,
  parsePrepAction,
  PLANNING_MESSAGE_MAX,
  tooLongMessage,
  type PlanningMessage,
} from '@chronicler/contracts';
import { ServiceError, type Bus, type Logger } from '@chronicler/kit';
import type { PrepStore } from '../db/prep-store.ts';
import type { PlanningStore } from '../db/store.ts';
import { ownGroup, sessionDigests } from './group-of.ts';
import { addPrepItems } from './prep.ts';

/** Earlier turns the AI sees with each message: enough for the thread, bounded for the context. */
const PLANNING_CONTEXT_MESSAGES = 20;

/**
 * svc.planning.send: the AI's reply to a planning message about one of the owner's groups,
 * given its sessions' summaries, the campaign summary, the recent history and the editor's
 * content and selection. The message and the reply are stored together once the reply is
 * there, so a failed request leaves the history as it was. A reply that adds prep items
 * (`parsePrepAction`) is applied to the group's checklist here, and stored as the items it added.
 */
export const send =
  (store: PlanningStore, prep: PrepStore, bus: Bus, engine: AiEngine, logger: Logger) =>
  async (req: {
    owner_id: string;
    group_id: string;
    content: string;
    editor: EditorContext | null;
  }): Promise<PlanningMessage> => {
    const content = req.content.trim();
    if (!content) throw new ServiceError('bad_request', 'Message cannot be empty.');
    if (content.length > PLANNING_MESSAGE_MAX) {
      throw new ServiceError('bad_request', tooLongMessage('Message', PLANNING_MESSAGE_MAX));
    }
    const group = await ownGroup(bus, req.owner_id, req.group_id);
    const asked = new Date().toISOString();
    const [sessions, earlier, characters] = await Promise.all([
      sessionDigests(bus, req.owner_id, group.id),
      store.recent(req.owner_id, group.id, PLANNING_CONTEXT_MESSAGES),
      groupCharacters(bus, req.owner_id, group.id),
    ]);
    const history: ChatMessage[] = earlier.map((m) => ({ role: m.role, content: m.content }));
    let reply: string;
    try {
      reply = await engine.plan(
        { userId: req.owner_id, type: 'planning' },
        {
          groupName: group.name,
          sessions,
          campaignSummary: group.llm_summary || group.summary,
          history,
          message: content,
          editor: req.editor,
          characters,
        },
      );
    } catch (err) {
      if (err instanceof AiRateLimitedError) {
        throw new ServiceError('rate_limited', err.message, { retryAfterMs: err.retryAfterMs });
      }
      if (err instanceof AiUnavailableError) {
        logger.warn({ err, group_id: group.id }, 'planning reply failed');
        throw new ServiceError('unavailable', 'The AI could not answer right now. Please try again.');
      }
      throw err;
    }
    const proposed = parsePrepAction(reply);
    if (proposed) {
      const added = await addPrepItems(prep, req.owner_id, group.id, proposed);
      reply = added.length
        ? JSON.stringify({ actionHint: ADD_PREP_ITEMS, items: added.map((i) => i.text) })
        : proposed.length
          ? 'Those prep items are already in the checklist (or it is full): nothing was added.'
          : 'There was nothing to add to the prep checklist.';
    }
    const [, answer] = await store.append(req.owner_id, group.id, [
      { role: 'user', content, timestamp: asked },
      { role: 'assistant', content: reply, timestamp: new Date().toISOString() },
    ]);
    return answer!;
  };
