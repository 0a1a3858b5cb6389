import { isOfflineAiText, withoutOfflineMarker } from '@chronicler/contracts';
import type { ComponentProps } from 'react';
import ReactMarkdown from 'react-markdown';
import { Link } from 'react-router-dom';
import { OfflineNotice } from './OfflineNotice.tsx';

/** A link of the app's own (a moment of a session: /sessions/{id}#t=...) opens in the app; others as links. */
function AppLink({ href, children, node: _node, ...rest }: ComponentProps<'a'> & { node?: unknown }) {
  if (href?.startsWith('/') && !href.startsWith('//')) {
    return (
      <Link to={href} {...rest}>
        {children}
      </Link>
    );
  }
  return (
    <a href={href} {...rest}>
      {children}
    </a>
  );
}

/**
 * Text that may be markdown (AI summaries are: lists, emphasis) shown formatted. Raw HTML in
 * it is dropped, never rendered: the text comes from a model or from another user's paste. Text
 * the offline fallback wrote gets its notice once, above it (for a `reader` of a shared link,
 * without the operator's setup).
 */
export function Markdown({
  text,
  className,
  reader = false,
}: {
  text: string;
  className?: string;
  reader?: boolean;
}) {
  const offline = isOfflineAiText(text);
  return (
    <div className={className}>
      {offline ? <OfflineNotice reader={reader} /> : null}
      <ReactMarkdown skipHtml components={{ a: AppLink }}>
        {offline ? withoutOfflineMarker(text) : text}
      </ReactMarkdown>
    </div>
  );
}
