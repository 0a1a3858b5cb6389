import { CAMPAIGN_SUMMARY_MAX, tooLongMessage, type SummaryVersion } from '@chronicler/contracts';
import { useId, useState, type FormEvent } from 'react';
import toast from 'react-hot-toast';
import type { GroupSummaryItem } from '../../api/types.ts';
import { PencilIcon } from '../../components/icons.tsx';
import { CollapseHeading } from './CollapseHeading.tsx';
import { useAuth } from '../auth/useAuth.ts';
import { GenerateCampaignSummaryButton, type ReplacementNotice } from './CampaignSummaryAi.tsx';
import { SummaryVersionsButton, useRestoreSummary, useSummaryVersions } from './SummaryVersions.tsx';
import { Markdown } from '../../components/Markdown.tsx';
import {
  looksLikeMarkdown,
  markdownToPlainText,
  summaryPreview,
  SUMMARY_PREVIEW_CHARS,
} from './session-data.ts';
import { useGroupUpdate } from './use-group-update.ts';

const REPLACING =
  "This campaign's sessions changed since its summary was generated, so the automatic update is replacing your hand-edited summary now. Your text is kept: you can read or restore it under Versions.";
const REPLACED = 'The automatic update replaced your hand-edited summary. Your text is kept under Versions.';
const REPLACED_ON_CHANGE =
  "When a session's summary changes, the automatic update replaces this text with a generated summary. Every replaced text is kept under Versions, where you can restore it.";

/** The newest version is the owner's text that a generation just replaced (not an older one). */
const isOwnersReplacedText = (v: SummaryVersion | undefined): boolean =>
  v?.source === 'hand' && v.replaced_by === 'generation';

/** The campaign summary written by hand: collapsible, cut to a preview when long, editable. */
export function CampaignSummary({ group, notice }: { group: GroupSummaryItem; notice: ReplacementNotice }) {
  const { isAdmin } = useAuth();
  const [open, setOpen] = useState(true);
  const [showAll, setShowAll] = useState(false);
  const [editing, setEditing] = useState(false);
  const summary = group.summary ?? '';
  const [draft, setDraft] = useState(summary);
  const update = useGroupUpdate(group);
  const versions = useSummaryVersions(group);
  const restore = useRestoreSummary(group);
  // Said before the text is replaced: an edit of a text the automatic update replaces.
  const replacedOnChange = versions.data?.replaced_on_change ?? Boolean(group.summary_generated_at);
  const bodyId = useId();
  const fieldId = useId();
  const tooLong = draft.length > CAMPAIGN_SUMMARY_MAX;
  const long = markdownToPlainText(summary).length > SUMMARY_PREVIEW_CHARS;

  const save = (event: FormEvent) => {
    event.preventDefault();
    if (tooLong || update.isPending) return;
    update.mutate(
      { summary: draft },
      {
        onSuccess: () => {
          setEditing(false);
          toast.success('Group updated successfully');
        },
        onError: (error) => {
          console.error('Failed to update campaign summary', error);
          toast.error('Failed to update group');
        },
      },
    );
  };

  return (
    <section className="card group-section">
      <div className="group-section-head">
        <CollapseHeading open={open} bodyId={bodyId} onToggle={() => setOpen((value) => !value)}>
          Campaign Summary
        </CollapseHeading>
        {open && !editing && (
          <div className="button-row">
            <button
              type="button"
              className="button button-secondary group-small-button"
              onClick={() => {
                setDraft(summary);
                setEditing(true);
              }}
            >
              <PencilIcon />
              Edit
            </button>
            <SummaryVersionsButton group={group} />
            {isAdmin ? <GenerateCampaignSummaryButton group={group} /> : null}
          </div>
        )}
      </div>
      <div id={bodyId} hidden={!open} className="group-section-body">
        {notice ? (
          <div className="summary-note" role="status">
            <p>{notice === 'replacing' ? REPLACING : REPLACED}</p>
            {notice === 'replaced' && isOwnersReplacedText(versions.data?.versions[0]) ? (
              <button
                type="button"
                className="button button-secondary group-small-button"
                disabled={restore.isPending}
                onClick={() => restore.mutate(versions.data!.versions[0]!.id)}
              >
                Restore my text
              </button>
            ) : null}
          </div>
        ) : null}
        {editing ? (
          <form onSubmit={save}>
            <label htmlFor={fieldId} className="field-label">
              Campaign summary
            </label>
            <textarea
              id={fieldId}
              className="text-input group-summary-input"
              rows={8}
              value={draft}
              aria-invalid={tooLong || undefined}
              aria-describedby={tooLong ? `${fieldId}-error` : undefined}
              onChange={(event) => setDraft(event.target.value)}
            />
            {tooLong && (
              <p id={`${fieldId}-error`} className="field-error">
                {tooLongMessage('Summary', CAMPAIGN_SUMMARY_MAX)}
              </p>
            )}
            {replacedOnChange ? <p className="summary-note">{REPLACED_ON_CHANGE}</p> : null}
            <div className="button-row group-form-actions">
              <button type="submit" className="button button-primary" disabled={tooLong || update.isPending}>
                {update.isPending ? 'Saving...' : 'Save'}
              </button>
              <button
                type="button"
                className="button button-secondary"
                onClick={() => {
                  setEditing(false);
                  setDraft(summary);
                }}
              >
                Cancel
              </button>
            </div>
          </form>
        ) : summary.trim() ? (
          <>
            {long && !showAll ? (
              <p className="group-summary-text">{summaryPreview(summary)}</p>
            ) : looksLikeMarkdown(summary) ? (
              <Markdown className="group-summary-text markdown-body" text={summary} />
            ) : (
              <p className="group-summary-text is-plain">{summary}</p>
            )}
            {long && (
              <button type="button" className="link-button" onClick={() => setShowAll((value) => !value)}>
                {showAll ? 'Show less' : 'Show more'}
              </button>
            )}
          </>
        ) : (
          <p className="muted">No campaign summary yet.</p>
        )}
      </div>
    </section>
  );
}
