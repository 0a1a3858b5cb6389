// A small cookie helper. The access_token cookie is normally httpOnly (set and cleared
// by the server); clearing it here as well covers a cookie set without that flag.

const DAY_SECONDS = 24 * 60 * 60;

/** Default lifetime of a cookie written by the client. */
export const DEFAULT_COOKIE_DAYS = 7;

export function setCookie(name: string, value: string, days: number = DEFAULT_COOKIE_DAYS): void {
  const maxAge = Math.round(days * DAY_SECONDS);
  document.cookie = `${encodeURIComponent(name)}=${encodeURIComponent(value)}; Max-Age=${maxAge}; Path=/; SameSite=Lax`;
}

export function getCookie(name: string): string | null {
  const prefix = `${encodeURIComponent(name)}=`;
  for (const part of document.cookie.split(';')) {
    const item = part.trim();
    if (item.startsWith(prefix)) return decodeURIComponent(item.slice(prefix.length));
  }
  return null;
}

export function deleteCookie(name: string): void {
  document.cookie = `${encodeURIComponent(name)}=; Max-Age=0; Path=/; SameSite=Lax`;
  document.cookie = `${encodeURIComponent(name)}=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/`;
}
