import type { AuthCheckResponse } from '@chronicler/contracts';
import { decodeJwt } from 'jose';

/** The value of a cookie set by a response, or undefined. */
export function setCookie(res: Response, name: string): { value: string; attributes: string } | undefined {
  for (const line of res.headers.getSetCookie()) {
    const [pair = '', ...attrs] = line.split(';');
    const eq = pair.indexOf('=');
    if (pair.slice(0, eq).trim() === name) return { value: pair.slice(eq + 1), attributes: attrs.join(';') };
  }
  return undefined;
}

/**
 * The password the test helpers give the local account `username`: derived from the name
 * as the server matches it (trimmed, spaces collapsed, any case), so "Keyleth" and
 * "keyleth" get the same one.
 */
export function localPassword(username: string): string {
  return `pw-${username.trim().replace(/\s+/g, ' ').toLowerCase()}-test`;
}

/**
 * Signs in with the local account, creating it with `localPassword(username)` the first
 * time (a create with the account's own password signs in); answers the body and the
 * cookie token.
 */
export async function localSignIn(
  url: string,
  username: string,
): Promise<{ body: AuthCheckResponse; cookie: string }> {
  const res = await fetch(`${url}/api/auth/local`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password: localPassword(username), create: true }),
  });
  if (res.status !== 200) throw new Error(`local sign-in answered ${res.status}: ${await res.text()}`);
  const cookie = setCookie(res, 'access_token');
  if (!cookie) throw new Error('no access_token cookie');
  return { body: (await res.json()) as AuthCheckResponse, cookie: cookie.value };
}

export const sessionIdOf = (token: string): string => String(decodeJwt(token).sid);

export async function authUser(url: string, headers: Record<string, string>): Promise<AuthCheckResponse> {
  return (await (await fetch(`${url}/api/auth/user`, { headers })).json()) as AuthCheckResponse;
}
