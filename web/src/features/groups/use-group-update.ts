import { useMutation, useQueryClient } from '@tanstack/react-query';
import { updateGroup } from '../../api/groups.ts';
import type { GroupSummaryItem } from '../../api/types.ts';
import { queryKeys } from '../../app/query-client.ts';

/** Puts the server's answer in the cached group list so the sidebar and dashboards show it at once. */
export function useGroupUpdate(group: GroupSummaryItem) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (changes: { name?: string; summary?: string }) => updateGroup(group.id, changes),
    onSuccess: (updated) => {
      queryClient.setQueryData<GroupSummaryItem[]>(queryKeys.groups, (old) =>
        old?.map((item) => (item.id === group.id ? { ...item, ...updated } : item)),
      );
    },
  });
}
