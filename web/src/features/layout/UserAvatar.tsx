import { useState } from 'react';
import type { AuthUser } from '../../api/types.ts';

/** The avatar is a full URL, or a Discord avatar hash that needs the user's Discord id. */
function avatarUrl(user: AuthUser): string | null {
  const avatar = user.avatar?.trim();
  if (!avatar) return null;
  if (/^(https?:)?\/\//i.test(avatar) || avatar.startsWith('/') || avatar.startsWith('data:image/'))
    return avatar;
  if (user.discord_id) {
    return `https://cdn.discordapp.com/avatars/${encodeURIComponent(user.discord_id)}/${encodeURIComponent(avatar)}.png?size=64`;
  }
  return null;
}

export function UserAvatar({ user }: { user: AuthUser }) {
  const src = avatarUrl(user);
  const [failedSrc, setFailedSrc] = useState<string | null>(null);
  const initial = (user.username.trim()[0] ?? '?').toUpperCase();

  if (!src || failedSrc === src) {
    return (
      <span className="avatar avatar-fallback" aria-hidden="true">
        {initial}
      </span>
    );
  }
  return (
    <img
      className="avatar"
      src={src}
      alt=""
      width={40}
      height={40}
      referrerPolicy="no-referrer"
      onError={() => setFailedSrc(src)}
    />
  );
}
