import type { SummaryVersion } from '@chronicler/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { listSummaryVersions, restoreSummaryVersion } from '../../api/campaign.ts';
import type { GroupSummaryItem } from '../../api/types.ts';
import { queryKeys } from '../../app/query-client.ts';
import { Modal } from '../dashboard/Modal.tsx';
import { markdownToPlainText } from './session-data.ts';

const when = (iso: string) =>
  new Date(iso).toLocaleString('en-US', { dateStyle: 'medium', timeStyle: 'short' });

const REPLACED_BY: Record<SummaryVersion['replaced_by'], string> = {
  edit: 'replaced by an edit',
  generation: 'replaced by a generated summary',
  restore: 'replaced by restoring an older version',
};

/** The kept versions of a campaign's summary, as the dashboard reads them. */
export function useSummaryVersions(group: GroupSummaryItem) {
  return useQuery({
    queryKey: queryKeys.summaryVersions(group.id),
    queryFn: () => listSummaryVersions(group.id),
  });
}

/** Restores a kept version: the group in the cache takes the restored text, the list refreshes. */
export function useRestoreSummary(group: GroupSummaryItem) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (versionId: string) => restoreSummaryVersion(group.id, versionId),
    onSuccess: (updated) => {
      queryClient.setQueryData<GroupSummaryItem[]>(queryKeys.groups, (old) =>
        old?.map((item) => (item.id === group.id ? { ...item, ...updated } : item)),
      );
      void queryClient.invalidateQueries({ queryKey: queryKeys.summaryVersions(group.id) });
      toast.success('Summary restored');
    },
    onError: (error) => {
      console.error('Failed to restore the summary', error);
      toast.error('Failed to restore the summary');
    },
  });
}

/** 'Versions (N)': every campaign summary replaced so far, to read and restore. */
export function SummaryVersionsButton({ group }: { group: GroupSummaryItem }) {
  const [open, setOpen] = useState(false);
  const versions = useSummaryVersions(group);
  const restore = useRestoreSummary(group);
  const total = versions.data?.total ?? 0;
  if (total === 0) return null;
  return (
    <>
      <button
        type="button"
        className="button button-secondary group-small-button"
        onClick={() => setOpen(true)}
      >
        Versions ({total})
      </button>
      {open ? (
        <Modal
          title="Earlier campaign summaries"
          onClose={() => setOpen(false)}
          footer={
            <button type="button" className="button button-secondary" onClick={() => setOpen(false)}>
              Close
            </button>
          }
        >
          <p className="muted">
            Every summary that was replaced is kept here. Restoring one keeps the current summary here too.
          </p>
          <ol className="summary-versions">
            {(versions.data?.versions ?? []).map((v) => (
              <li key={v.id}>
                <div className="summary-version-meta">
                  <span className="muted">
                    {v.source === 'generated' ? 'Generated' : 'Written by hand'}, {REPLACED_BY[v.replaced_by]}{' '}
                    on {when(v.replaced_at)}
                  </span>
                  <button
                    type="button"
                    className="button button-secondary group-small-button"
                    disabled={restore.isPending}
                    onClick={() => restore.mutate(v.id, { onSuccess: () => setOpen(false) })}
                  >
                    Restore
                  </button>
                </div>
                <p className="summary-version-text">{markdownToPlainText(v.summary).trim()}</p>
              </li>
            ))}
          </ol>
        </Modal>
      ) : null}
    </>
  );
}
