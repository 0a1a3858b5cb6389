import {
  ASK_QUESTION_MAX_CHARS,
  ASK_QUESTION_TOO_LONG,
  formatOffset,
  type Citation,
} from '@chronicler/contracts';
import { useMutation } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { askCampaign } from '../../api/campaign.ts';
import { errorDetail } from '../../api/http.ts';
import type { GroupSummaryItem } from '../../api/types.ts';
import { Markdown } from '../../components/Markdown.tsx';
import { Spinner } from '../../components/Spinner.tsx';

const where = (c: Citation) =>
  c.seconds === null
    ? `${c.transcript_name}, line ${c.line + 1}`
    : `${c.transcript_name} at ${formatOffset(c.seconds)}`;

/**
 * Ask the Campaign: a question answered from every session of the campaign (quoted offline, in
 * words with a model), each cited moment a link that opens the session there.
 */
export function CampaignAsk({ group }: { group: GroupSummaryItem }) {
  const [question, setQuestion] = useState('');
  const fieldId = useId();
  const ask = useMutation({ mutationFn: (q: string) => askCampaign(group.id, q) });
  const trimmed = question.trim();
  const tooLong = trimmed.length > ASK_QUESTION_MAX_CHARS;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!trimmed || tooLong || ask.isPending) return;
    ask.mutate(trimmed);
  };

  return (
    <section className="card group-section campaign-ask" aria-labelledby={`${fieldId}-title`}>
      <h2 id={`${fieldId}-title`} className="card-title">
        Ask the Campaign
      </h2>
      <p className="muted">
        Answers come from every session of this campaign, with the moments they were said.
      </p>
      <form onSubmit={submit} className="campaign-ask-form">
        <label htmlFor={fieldId} className="field-label">
          Question
        </label>
        <div className="campaign-ask-row">
          <input
            id={fieldId}
            className="text-input"
            value={question}
            placeholder="Who did we promise to help?"
            aria-invalid={tooLong || undefined}
            aria-describedby={tooLong ? `${fieldId}-error` : undefined}
            onChange={(event) => setQuestion(event.target.value)}
          />
          <button
            type="submit"
            className="button button-primary"
            disabled={!trimmed || tooLong || ask.isPending}
          >
            {ask.isPending ? 'Asking...' : 'Ask'}
          </button>
        </div>
        {tooLong ? (
          <p id={`${fieldId}-error`} className="field-error">
            {ASK_QUESTION_TOO_LONG}
          </p>
        ) : null}
      </form>
      {ask.isPending ? <Spinner label="Searching the sessions..." /> : null}
      {ask.isError ? (
        <p className="field-error" role="alert">
          {errorDetail(ask.error, 'Failed to ask the campaign. Please try again.')}
        </p>
      ) : null}
      {ask.data && !ask.isPending ? (
        <div className="campaign-answer" aria-live="polite">
          <Markdown className="markdown-body campaign-answer-text" text={ask.data.answer} />
          {ask.data.citations.length > 0 ? (
            <>
              <h3 className="campaign-citations-title">Cited moments</h3>
              <ol className="campaign-citations">
                {ask.data.citations.map((c) => (
                  <li key={c.link}>
                    <Link to={c.link}>{where(c)}</Link>
                  </li>
                ))}
              </ol>
            </>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
