import { AI_CONNECT_HINT, AI_SETUP_SECTION } from '@chronicler/contracts';

/**
 * Shown once above AI output the built-in offline fallback wrote (no model is configured): what
 * it is, and one line on how to connect a model. A reader of a shared link (`reader`) runs no
 * server: they get what it is, never the operator's setup.
 */
export function OfflineNotice({
  what = 'digest',
  reader = false,
}: {
  what?: 'digest' | 'answers';
  reader?: boolean;
}) {
  return (
    <p className="notice offline-notice small" role="note">
      <strong>Offline {what === 'digest' ? 'digest' : 'answers'}:</strong> no AI model is connected, so{' '}
      {what === 'digest'
        ? 'these are the transcript’s own lines, not a written recap'
        : 'replies quote the transcript'}
      .{reader ? null : ` ${AI_CONNECT_HINT} See “${AI_SETUP_SECTION}” in the README.`}
    </p>
  );
}
