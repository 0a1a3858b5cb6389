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
 * the offline fallback wrote gets its notice once, above it (without how to connect a model for
 * a `guest`: someone reading a shared link).
 */
export function Markdown({ text, className, guest }: { text: string; className?: string; guest?: boolean }) {
  const offline = isOfflineAiText(text);
  return (
    <div className={className}>
      {offline ? <OfflineNotice guest={guest} /> : null}
      <ReactMarkdown skipHtml components={{ a: AppLink }}>
        {offline ? withoutOfflineMarker(text) : text}
      </ReactMarkdown>
    </div>
  );
}
