import { isOfflineAiText, withoutOfflineMarker } from '@chronicler/contracts';
import ReactMarkdown from 'react-markdown';
import { OfflineNotice } from './OfflineNotice.tsx';

/**
 * Text that may be markdown (AI summaries are: lists, emphasis) shown formatted. Raw HTML in
 * it is dropped, never rendered: the text comes from a model or from another user's paste. Text
 * the offline fallback wrote gets its notice once, above it.
 */
export function Markdown({ text, className }: { text: string; className?: string }) {
  const offline = isOfflineAiText(text);
  return (
    <div className={className}>
      {offline ? <OfflineNotice /> : null}
      <ReactMarkdown skipHtml>{offline ? withoutOfflineMarker(text) : text}</ReactMarkdown>
    </div>
  );
}
