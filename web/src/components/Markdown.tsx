import ReactMarkdown from 'react-markdown';

/**
 * Text that may be markdown (AI summaries are: lists, emphasis) shown formatted. Raw HTML in
 * it is dropped, never rendered: the text comes from a model or from another user's paste.
 */
export function Markdown({ text, className }: { text: string; className?: string }) {
  return (
    <div className={className}>
      <ReactMarkdown skipHtml>{text}</ReactMarkdown>
    </div>
  );
}
