import type { OAuthErrorCode } from '@chronicler/contracts';
import { createHash, randomBytes } from 'node:crypto';

/** An expected way for an OAuth flow to fail; it becomes `/login?error=<code>`. */
export class OAuthFailure extends Error {
  override readonly name = 'OAuthFailure';
  constructor(
    readonly code: OAuthErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface Pkce {
  state: string;
  verifier: string;
  challenge: string;
}

/** A fresh state and PKCE pair (RFC 7636, S256). */
export function newPkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return {
    state: randomBytes(24).toString('base64url'),
    verifier,
    challenge: createHash('sha256').update(verifier).digest('base64url'),
  };
}

/**
 * Calls a provider and reads its JSON answer, turning every way it can fail into an
 * OAuthFailure: network errors and timeouts → provider_unavailable, 429 and 5xx →
 * provider_unavailable, `invalid_grant` → invalid_grant, other 4xx or non-JSON →
 * provider_error.
 */
export async function providerJson(
  url: string,
  init: RequestInit & { timeoutMs: number; what: string; array?: boolean },
): Promise<Record<string, unknown>> {
  let res: Response;
  try {
    const { array: _array, ...request } = init;
    res = await fetch(url, { ...request, redirect: 'error', signal: AbortSignal.timeout(init.timeoutMs) });
  } catch (err) {
    const reason =
      (err as Error).name === 'TimeoutError'
        ? `timed out after ${init.timeoutMs} ms`
        : (err as Error).message;
    throw new OAuthFailure('provider_unavailable', `${init.what}: ${reason}`);
  }
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    body = undefined;
  }
  // `array`: an endpoint answering a JSON array (Discord's guild list) comes back as { items }.
  if (init.array && res.ok && Array.isArray(body)) body = { items: body };
  const obj =
    body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
  if (!res.ok) {
    if (res.status === 429 || res.status >= 500) {
      throw new OAuthFailure('provider_unavailable', `${init.what}: provider answered ${res.status}`);
    }
    if (obj?.error === 'invalid_grant')
      throw new OAuthFailure('invalid_grant', `${init.what}: invalid_grant`);
    throw new OAuthFailure(
      'provider_error',
      `${init.what}: provider answered ${res.status} ${String(obj?.error ?? '')}`,
    );
  }
  if (!obj) throw new OAuthFailure('provider_error', `${init.what}: answer is not a JSON object`);
  return obj;
}

/** The authorization-code exchange (RFC 6749 §4.1.3 with the PKCE verifier). */
export function exchangeCode(
  tokenUrl: string,
  params: {
    code: string;
    redirectUri: string;
    verifier: string;
    clientId: string;
    clientSecret: string;
    timeoutMs: number;
  },
): Promise<Record<string, unknown>> {
  return providerJson(tokenUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: params.code,
      redirect_uri: params.redirectUri,
      code_verifier: params.verifier,
      client_id: params.clientId,
      client_secret: params.clientSecret,
    }),
    timeoutMs: params.timeoutMs,
    what: 'token exchange',
  });
}
