// A small cookie helper. The access_token cookie is normally httpOnly (set and cleared
// by the server); clearing it here as well covers a cookie set without that flag.

export function deleteCookie(name: string): void {
  document.cookie = `${encodeURIComponent(name)}=; Max-Age=0; Path=/; SameSite=Lax`;
  document.cookie = `${encodeURIComponent(name)}=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/`;
}
