import type { GroupPrep, PrepUpdate } from '@chronicler/contracts';
import type { QueryClient } from '@tanstack/react-query';

/** The query of a campaign's prep checklist. */
export const prepKey = (groupId: string) => ['prep', groupId] as const;

/** Items a live session just ticked replace their old state in the campaign's checklist. */
export function applyPrepUpdate(queryClient: QueryClient, update: PrepUpdate): void {
  queryClient.setQueryData(prepKey(update.group_id), (old: GroupPrep | undefined) => {
    if (!old) return old;
    const next = new Map(update.items.map((i) => [i.id, i]));
    return { ...old, items: old.items.map((i) => next.get(i.id) ?? i) };
  });
}
