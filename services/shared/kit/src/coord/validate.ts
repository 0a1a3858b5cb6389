/**
 * Argument checks shared by both implementations, so that a bad TTL or limit fails the same
 * way in the embedded mode as in the cluster (Redis would reject a fractional or zero PX
 * with a less helpful message, memory would silently accept it).
 */
export function positiveMs(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive number of milliseconds, got ${value}`);
  }
  // Redis takes whole milliseconds; rounding up never shortens what the caller asked for.
  return Math.ceil(value);
}

export function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value <= 0) {
    throw new RangeError(`${name} must be a positive integer, got ${value}`);
  }
  return value;
}

/** Both implementations store JSON text, so values behave the same (copies, Dates as strings). */
export function toJson(value: unknown): string {
  const json = JSON.stringify(value);
  if (json === undefined) throw new TypeError(`Cache values must be JSON-serialisable, got ${typeof value}`);
  return json;
}

/** The checked limits of a hitAll call: at least one, distinct keys, positive limits and windows. */
export function checkedHits(
  hits: readonly { key: string; limit: number; windowMs: number }[],
): { key: string; limit: number; windowMs: number }[] {
  if (hits.length === 0) throw new RangeError('hitAll needs at least one limit');
  if (new Set(hits.map((h) => h.key)).size !== hits.length) {
    throw new RangeError('hitAll needs distinct keys');
  }
  return hits.map((h) => ({
    key: h.key,
    limit: positiveInteger('limit', h.limit),
    windowMs: positiveMs('windowMs', h.windowMs),
  }));
}

/** Buckets in a WindowCounters window: the current one and nine before it. */
export const WINDOW_BUCKETS = 10;

/** The checked entries of a WindowCounters.add call, each with its bucket length in whole ms. */
export function checkedCounts(
  entries: readonly { key: string; windowMs: number; delta: number }[],
): { key: string; bucketMs: number; delta: number }[] {
  return entries.map((e) => {
    if (!Number.isInteger(e.delta) || e.delta < 0) {
      throw new RangeError(`delta must be a whole number of hits, got ${e.delta}`);
    }
    return {
      key: e.key,
      bucketMs: Math.ceil(positiveMs('windowMs', e.windowMs) / WINDOW_BUCKETS),
      delta: e.delta,
    };
  });
}
