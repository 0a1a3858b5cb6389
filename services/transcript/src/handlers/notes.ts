import type { TranscriptStore } from '../db/store.ts';
import { assertNoNul, transcriptNotFound } from '../validation.ts';

/** svc.transcript.get-notes: '' when the session has none yet. */
export const getNotes =
  (store: TranscriptStore) =>
  async (req: { owner_id: string; id: string }): Promise<{ content: string }> => {
    const content = await store.getNotes(req.owner_id, req.id);
    if (content === null) throw transcriptNotFound();
    return { content };
  };

/** svc.transcript.put-notes: stored exactly as given. */
export const putNotes =
  (store: TranscriptStore) =>
  async (req: { owner_id: string; id: string; content: string }): Promise<{ content: string }> => {
    if (!(await store.getItem(req.owner_id, req.id))) throw transcriptNotFound();
    assertNoNul(req.content, 'Notes');
    const content = await store.putNotes(req.owner_id, req.id, req.content);
    if (content === null) throw transcriptNotFound();
    return { content };
  };
