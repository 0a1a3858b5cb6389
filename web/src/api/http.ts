// The one HTTP helper every call goes through: JSON, cookies included, the stored token
// sent as both a bearer authorization header and an auth-token header. A 401 is met once
// by a refresh of the access token (refresh.ts) and the request sent again, so an expired
// token is replaced without the user noticing. Failures become an ApiError: status
// 'unauthorized' with 'Authentication required' for a 401, status 'error' with the caller's
// message for anything else (the server's detail is kept).
import { readItem, STORAGE_KEYS } from '../lib/storage.ts';
import { refreshAccess } from './refresh.ts';

function trimTrailingSlash(value: string): string {
  return value.endsWith('/') ? value.slice(0, -1) : value;
}

/** Base path of the API: VITE_API_BASE, else /api on the same origin. */
export const API_BASE = trimTrailingSlash(import.meta.env.VITE_API_BASE || '/api');

export type ApiErrorStatus = 'unauthorized' | 'error';

export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    readonly status: ApiErrorStatus,
    message: string,
    /** HTTP status, absent when the request never got an answer. */
    readonly httpStatus?: number,
    /** The server's `detail` message, when it sent one. */
    readonly detail?: string,
  ) {
    super(message);
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

/** What an in-page message should say: the server's detail, else the error's message, else the fallback. */
export function errorDetail(error: unknown, fallback: string): string {
  if (isApiError(error) && error.detail) return error.detail;
  if (error instanceof Error && error.message) return error.message;
  return fallback;
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** A plain object is sent as JSON; FormData is sent as multipart. */
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
  /** Abort the request after this many milliseconds. */
  timeoutMs?: number;
  /** The message an ApiError with status 'error' carries. */
  errorMessage?: string;
}

export function authHeaders(): Record<string, string> {
  const token = readItem(STORAGE_KEYS.token);
  return token ? { Authorization: `Bearer ${token}`, 'auth-token': token } : {};
}

function buildUrl(path: string, query?: RequestOptions['query']): string {
  let url = `${API_BASE}${path.startsWith('/') ? path : `/${path}`}`;
  if (query) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) params.set(key, String(value));
    }
    const qs = params.toString();
    if (qs) url += `?${qs}`;
  }
  return url;
}

async function readDetail(response: Response): Promise<string | undefined> {
  try {
    const body: unknown = await response.json();
    if (body && typeof body === 'object' && 'detail' in body) {
      const detail = (body as { detail: unknown }).detail;
      if (typeof detail === 'string') return detail;
    }
  } catch {
    // Not JSON: no detail to show.
  }
  return undefined;
}

export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return (await send<T>(buildUrl(path, options.query), path, options)).data;
}

/** The target of a response's RFC 8288 `Link: <...>; rel="next"`, or null. */
export function nextLink(header: string | null): string | null {
  if (!header) return null;
  for (const part of header.split(',')) {
    const m = /^\s*<([^>]*)>(.*)$/.exec(part);
    const rel = m ? /;\s*rel\s*=\s*"?([^";]*)"?/i.exec(m[2]!) : null;
    if (m && rel && rel[1]!.toLowerCase().split(/\s+/).includes('next')) return m[1]!;
  }
  return null;
}

/**
 * Every item of a paged list (GET /transcripts, /groups): the first page, then each page its
 * `Link: rel="next"` names, until none does. The server bounds each page, not the list.
 */
async function apiRequestAllPages<T>(path: string, options: RequestOptions = {}): Promise<T[]> {
  const items: T[] = [];
  let url: string | null = buildUrl(path, options.query);
  const seen = new Set<string>();
  while (url !== null && !seen.has(url)) {
    seen.add(url);
    const page: { data: unknown; next: string | null } = await send<unknown>(url, path, options);
    if (!Array.isArray(page.data)) break;
    items.push(...(page.data as T[]));
    url = page.next === null ? null : new URL(page.next, window.location.href).href;
  }
  return items;
}

async function send<T>(
  url: string,
  path: string,
  options: RequestOptions,
): Promise<{ data: T; next: string | null }> {
  const sentToken = readItem(STORAGE_KEYS.token);
  const first = await sendOnce<T>(url, path, options);
  // Sign-in routes answer 401 for wrong credentials: nothing a refresh would change.
  if (first.kind !== 'unauthorized' || NO_REFRESH.has(path)) return unwrap(first, path, options);
  const refreshed = await refreshAccess(sentToken);
  if (!refreshed || options.signal?.aborted) return unwrap(first, path, options);
  return unwrap(await sendOnce<T>(url, path, options), path, options);
}

const NO_REFRESH = new Set(['/auth/local', '/auth/google/credential', '/auth/refresh', '/auth/logout']);

type Outcome<T> =
  | { kind: 'ok'; data: T; next: string | null }
  | { kind: 'unauthorized'; detail: string | undefined }
  | { kind: 'failed'; error: ApiError };

function unwrap<T>(
  outcome: Outcome<T>,
  path: string,
  options: RequestOptions,
): { data: T; next: string | null } {
  if (outcome.kind === 'ok') return outcome;
  if (outcome.kind === 'failed') throw outcome.error;
  const { method = 'GET' } = options;
  console.error(`Authentication error: ${method} ${path} answered 401`);
  throw new ApiError('unauthorized', 'Authentication required', 401, outcome.detail);
}

async function sendOnce<T>(url: string, path: string, options: RequestOptions): Promise<Outcome<T>> {
  const { method = 'GET', body, timeoutMs, errorMessage = 'Request failed' } = options;
  const headers: Record<string, string> = { Accept: 'application/json', ...authHeaders() };
  let payload: BodyInit | undefined;
  if (body instanceof FormData) {
    payload = body;
  } else if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }

  const signals: AbortSignal[] = [];
  if (options.signal) signals.push(options.signal);
  if (timeoutMs !== undefined) signals.push(AbortSignal.timeout(timeoutMs));
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];

  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: payload,
      credentials: 'include',
      signal,
    });
  } catch (cause) {
    // The caller's own abort is not a failure to report; let it through unchanged.
    if (options.signal?.aborted) throw cause;
    return { kind: 'failed', error: new ApiError('error', errorMessage) };
  }

  if (response.status === 401) {
    return { kind: 'unauthorized', detail: await readDetail(response) };
  }
  if (!response.ok) {
    return {
      kind: 'failed',
      error: new ApiError('error', errorMessage, response.status, await readDetail(response)),
    };
  }
  const next = nextLink(response.headers.get('link'));
  if (response.status === 204) return { kind: 'ok', data: undefined as T, next };
  const text = await response.text();
  if (!text) return { kind: 'ok', data: undefined as T, next };
  try {
    return { kind: 'ok', data: JSON.parse(text) as T, next };
  } catch {
    return { kind: 'failed', error: new ApiError('error', errorMessage, response.status) };
  }
}

/**
 * One page of a paged list and the address of the next (null after the last): `path` with
 * `options.query` for the first page, or `next`, the previous page's `Link: rel="next"`.
 */
export async function apiRequestPage<T>(
  path: string,
  next: string | null,
  options: RequestOptions = {},
): Promise<{ items: T[]; next: string | null }> {
  const url = next === null ? buildUrl(path, options.query) : new URL(next, window.location.href).href;
  const page = await send<unknown>(url, path, options);
  return { items: Array.isArray(page.data) ? (page.data as T[]) : [], next: page.next };
}

/** A list fetch, every page of it: failures are logged and give an empty list. */
export async function listRequest<T>(path: string, options: RequestOptions = {}): Promise<T[]> {
  try {
    return await apiRequestAllPages<T>(path, options);
  } catch (error) {
    console.warn(`Could not load ${path}`, error);
    return [];
  }
}
