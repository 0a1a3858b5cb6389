import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useState } from 'react';
import toast from 'react-hot-toast';
import { listSummaryVersions } from '../../api/campaign.ts';
import { checkGroupSummary, generateGroupSummary } from '../../api/summaries.ts';
import type { GroupSummaryItem } from '../../api/types.ts';
import { queryKeys } from '../../app/query-client.ts';
import { CollapseHeading } from './CollapseHeading.tsx';
import { Modal, ModalActions } from '../dashboard/Modal.tsx';
import { Markdown } from '../../components/Markdown.tsx';

const REPLACE_CAMPAIGN_SUMMARY =
  'This campaign already has a summary. Generating a new summary will permanently replace the existing one and cannot be undone. Continue?';

/** The group in the cached list, replaced by the server's newer copy of its summary fields. */
function useStoreGroupSummary() {
  const queryClient = useQueryClient();
  return (
    groupId: string,
    fields: Pick<GroupSummaryItem, 'summary' | 'llm_summary'> & Partial<GroupSummaryItem>,
  ) =>
    queryClient.setQueryData<GroupSummaryItem[]>(queryKeys.groups, (old) =>
      old?.map((item) => (item.id === groupId || item.group_id === groupId ? { ...item, ...fields } : item)),
    );
}

/** Groups checked in this page load: the check runs once per group, not on every visit. */
const checkedGroups = new Set<string>();

/** What the dashboard says about the check replacing the owner's text: before, then after. */
export type ReplacementNotice = 'replacing' | 'replaced' | null;

/**
 * Asks the server once per group whether its campaign summary is out of date (it generates
 * one when so) and puts a new summary in the cache. When the text it would replace is the
 * owner's, the dashboard says so before the check runs (the versions answer tells) and after
 * (the text is kept as a version). Failures are logged only, with no message to the user.
 */
export function useCampaignSummaryCheck(group: GroupSummaryItem): ReplacementNotice {
  const store = useStoreGroupSummary();
  const queryClient = useQueryClient();
  const [notice, setNotice] = useState<ReplacementNotice>(null);
  useEffect(() => {
    if (checkedGroups.has(group.id)) return;
    checkedGroups.add(group.id);
    void (async () => {
      const versions = await queryClient
        .fetchQuery({
          queryKey: queryKeys.summaryVersions(group.id),
          queryFn: () => listSummaryVersions(group.id),
        })
        .catch(() => null);
      const owners = Boolean(versions?.replace_due && versions.current_source === 'hand');
      if (owners) setNotice('replacing');
      try {
        const result = await checkGroupSummary(group.id);
        if (!result.needs_update) {
          setNotice(null);
          return;
        }
        store(group.id, { summary: result.summary, llm_summary: result.llm_summary });
        toast.success('Campaign summary updated automatically!');
        setNotice(owners ? 'replaced' : null);
        void queryClient.invalidateQueries({ queryKey: queryKeys.summaryVersions(group.id) });
      } catch (error) {
        setNotice(null);
        console.error('Failed to check campaign summary', error);
      }
    })();
    // Once per group: the store function changes identity every render.
  }, [group.id]);
  return notice;
}

/** Admins: 'Generate Summary', or 'Regenerate Summary' after the replace confirmation. */
export function GenerateCampaignSummaryButton({ group }: { group: GroupSummaryItem }) {
  const store = useStoreGroupSummary();
  const [confirming, setConfirming] = useState(false);
  const hasSummary = Boolean(group.summary?.trim());
  const generate = useMutation({
    mutationFn: () => generateGroupSummary(group.id),
    onMutate: () => toast('Generating campaign summary...', { id: `campaign-summary-${group.id}` }),
    onSuccess: (updated) => {
      store(group.id, updated);
      toast.success('Campaign summary generated successfully!', { id: `campaign-summary-${group.id}` });
    },
    onError: (error) => {
      console.error('Failed to generate campaign summary', error);
      toast.error('Failed to generate campaign summary', { id: `campaign-summary-${group.id}` });
    },
    onSettled: () => setConfirming(false),
  });
  return (
    <>
      <button
        type="button"
        className="button button-primary group-small-button"
        disabled={generate.isPending}
        onClick={() => (hasSummary ? setConfirming(true) : generate.mutate())}
      >
        {generate.isPending ? 'Generating...' : hasSummary ? 'Regenerate Summary' : 'Generate Summary'}
      </button>
      {confirming ? (
        <Modal
          title="Regenerate Summary"
          onClose={() => setConfirming(false)}
          footer={
            <ModalActions
              onCancel={() => setConfirming(false)}
              danger
              label="Regenerate"
              pendingLabel="Generating..."
              pending={generate.isPending}
              onConfirm={() => generate.mutate()}
            />
          }
        >
          <p>{REPLACE_CAMPAIGN_SUMMARY}</p>
        </Modal>
      ) : null}
    </>
  );
}

/** Admins: the model's own campaign summary, collapsed until opened. */
export function LlmCampaignSummary({ group }: { group: GroupSummaryItem }) {
  const [open, setOpen] = useState(false);
  const bodyId = useId();
  const text = group.llm_summary?.trim() ?? '';
  return (
    <section className="card group-section">
      <div className="group-section-head">
        <CollapseHeading open={open} bodyId={bodyId} onToggle={() => setOpen((value) => !value)}>
          LLM Campaign Summary (Admin)
        </CollapseHeading>
      </div>
      <div id={bodyId} hidden={!open} className="group-section-body">
        {text ? (
          <Markdown className="group-summary-text markdown-body" text={text} />
        ) : (
          <p className="muted">No LLM campaign summary yet.</p>
        )}
      </div>
    </section>
  );
}
