import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { errorDetail } from '../../api/http.ts';
import { createShare, listShares, revokeShare, type CreatedShare, type ShareKind } from '../../api/shares.ts';
import { Spinner } from '../../components/Spinner.tsx';
import { Modal } from '../dashboard/Modal.tsx';
import './shares.css';

const DAY_MS = 24 * 60 * 60 * 1000;
/** The expiries a link may be given; '' never expires (until revoked). */
const EXPIRY_CHOICES = [
  { value: '', label: 'Never (until revoked)' },
  { value: '1', label: '1 day' },
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
];

const TITLES: Record<ShareKind, string> = {
  transcript: 'Share session',
  group: 'Share campaign',
  'character-recap': "Share a character's story",
  previously: 'Share "previously on"',
};

const dateTime = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short' });
const when = (iso: string) => dateTime.format(new Date(iso));

/** The address a player opens: this site's /shared/{token}. */
const shareUrl = (created: CreatedShare): string => new URL(created.path, window.location.origin).href;

/**
 * The owner's read-only links to a session or a campaign: make one (with an optional expiry),
 * copy it while it is shown (only its creation answers the token), see the links that still
 * work, and revoke any of them at once.
 */
export function ShareDialog({
  kind,
  targetId,
  name,
  subject,
  onClose,
}: {
  kind: ShareKind;
  targetId: string;
  name: string;
  /** The character of a character's story. */
  subject?: string;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const key = ['shares', kind, targetId, subject ?? ''];
  const shares = useQuery({
    queryKey: key,
    // A campaign's character stories are listed together: this dialog shows this character's.
    queryFn: async () =>
      (await listShares(kind, targetId)).filter((s) => subject === undefined || s.subject === subject),
  });
  const [expiry, setExpiry] = useState('');
  const [created, setCreated] = useState<CreatedShare | null>(null);
  const create = useMutation({
    mutationFn: () =>
      createShare(
        kind,
        targetId,
        expiry ? new Date(Date.now() + Number(expiry) * DAY_MS).toISOString() : null,
        subject,
      ),
    onSuccess: (share) => {
      setCreated(share);
      void queryClient.invalidateQueries({ queryKey: key });
    },
    onError: (cause) => toast.error(errorDetail(cause, 'Failed to create the share link')),
  });
  const revoke = useMutation({
    mutationFn: (shareId: string) => revokeShare(kind, targetId, shareId),
    onSuccess: (_ok, shareId) => {
      toast.success('Link revoked');
      if (created?.id === shareId) setCreated(null);
      void queryClient.invalidateQueries({ queryKey: key });
    },
    onError: (cause) => toast.error(errorDetail(cause, 'Failed to revoke the share link')),
  });
  const copy = async (url: string) => {
    try {
      await navigator.clipboard.writeText(url);
      toast.success('Link copied');
    } catch {
      toast.error('Copy failed: select the link and copy it');
    }
  };

  return (
    <Modal
      title={TITLES[kind]}
      onClose={onClose}
      footer={
        <button type="button" className="button button-secondary" onClick={onClose}>
          Close
        </button>
      }
    >
      <p className="muted small">
        {kind === 'character-recap' || kind === 'previously' ? (
          <>
            Anyone with a link can read <strong>{name}</strong> and the codex entries you show to players,
            never your secrets, notes or planning. They cannot change anything.
          </>
        ) : (
          <>
            Anyone with a link can read <strong>{name}</strong>
            {kind === 'group' ? ', its sessions' : ''}: transcript and summary, never your notes or planning.
            They cannot change anything.
          </>
        )}
      </p>
      <div className="share-create">
        <label className="small" htmlFor="share-expiry">
          Expires
        </label>
        <select
          id="share-expiry"
          className="text-input"
          value={expiry}
          onChange={(event) => setExpiry(event.target.value)}
        >
          {EXPIRY_CHOICES.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
        <button
          type="button"
          className="button button-primary"
          disabled={create.isPending}
          onClick={() => create.mutate()}
        >
          {create.isPending ? 'Creating...' : 'Create link'}
        </button>
      </div>
      {created ? (
        <div className="share-new" role="status">
          <label className="small" htmlFor="share-new-url">
            New link (shown once: copy it now)
          </label>
          <div className="share-new-row">
            <input
              id="share-new-url"
              className="text-input"
              readOnly
              value={shareUrl(created)}
              onFocus={(e) => e.target.select()}
            />
            <button
              type="button"
              className="button button-secondary"
              onClick={() => void copy(shareUrl(created))}
            >
              Copy
            </button>
          </div>
        </div>
      ) : null}
      <h3 className="share-list-title">Links that work now</h3>
      {shares.isPending ? (
        <Spinner label="Loading links..." size="small" />
      ) : shares.isError ? (
        <p className="muted small">{errorDetail(shares.error, 'Failed to load the share links')}</p>
      ) : shares.data.length === 0 ? (
        <p className="muted small">No links yet.</p>
      ) : (
        <ul className="share-list">
          {shares.data.map((share) => (
            <li key={share.id} className="share-item">
              <span className="small">
                Created {when(share.created_at)}
                {share.expires_at ? ` · expires ${when(share.expires_at)}` : ' · never expires'}
              </span>
              <button
                type="button"
                className="button button-secondary button-compact"
                disabled={revoke.isPending}
                onClick={() => revoke.mutate(share.id)}
              >
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
    </Modal>
  );
}
