/**
 * The load scenarios as generators of HTTP steps: each yields a request and gets its answer
 * back, so the k6 script (tests/load/chronicler.ts, k6/http) and the Node driver
 * (tests/bench/load.ts, fetch) run exactly the same user behaviour. Pure code: no k6 or Node
 * module is imported here.
 */

interface Step {
  /** Metric tag: one name per kind of request, never per id. */
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: unknown;
  /** The status a correct answer has. */
  expect: number;
}

export interface Reply {
  status: number;
  /** The parsed JSON body, or null. */
  json: unknown;
}

export type Flow = Generator<Step, void, Reply>;

interface ListItem {
  id: string;
}

/** Random element, or undefined for an empty list. */
const pick = <T>(items: T[], random: () => number): T | undefined =>
  items[Math.floor(random() * items.length)];

/** A browsing user: the list, one transcript, its notes, the groups. */
export function* browsing(random: () => number = Math.random): Flow {
  const list = yield {
    name: 'list transcripts',
    method: 'GET',
    path: '/api/transcripts?limit=50',
    expect: 200,
  };
  const item = pick(Array.isArray(list.json) ? (list.json as ListItem[]) : [], random);
  if (item) {
    yield { name: 'get transcript', method: 'GET', path: `/api/transcripts/${item.id}`, expect: 200 };
    yield { name: 'get notes', method: 'GET', path: `/api/transcripts/${item.id}/notes`, expect: 200 };
  }
  yield { name: 'list groups', method: 'GET', path: '/api/groups?limit=50', expect: 200 };
}

/** Lines of a pasted transcript, about `chars` characters. */
function transcriptText(chars: number, seed = 0): string {
  const speakers = ['Matt', 'Laura', 'Travis', 'Marisha', 'Sam'];
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < chars; i++) {
    const line = `${speakers[(i + seed) % speakers.length]}: The party walks on through the rain, line ${i}, and someone rolls a ${(i * 7 + seed) % 20} for perception.`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join('\n');
}

/** A session writer: creates a session by hand, renames it, writes its summary, keeps notes. */
export function* writer(n: number): Flow {
  const created = yield {
    name: 'create manual transcript',
    method: 'POST',
    path: '/api/transcripts/manual',
    body: { name: `Load session ${n}`, session_date: '2026-01-01', transcript: transcriptText(4000, n) },
    expect: 200,
  };
  const id = (created.json as ListItem | null)?.id;
  if (!id) return;
  yield {
    name: 'rename transcript',
    method: 'PUT',
    path: `/api/transcripts/${id}/rename`,
    body: { name: `Load session ${n} (renamed)` },
    expect: 200,
  };
  yield {
    name: 'write summary',
    method: 'PUT',
    path: `/api/transcripts/${id}/summary`,
    body: { summary: `The party crossed the bridge in session ${n}.` },
    expect: 200,
  };
  yield {
    name: 'write notes',
    method: 'PUT',
    path: `/api/transcripts/${id}/notes`,
    body: { content: `Notes of ${n}` },
    expect: 200,
  };
}

/** Chat: one question about one of the user's transcripts (the offline engine answers without an API key). */
export function* chat(transcriptIds: string[], random: () => number = Math.random): Flow {
  const id = pick(transcriptIds, random);
  if (!id) return;
  yield {
    name: 'chat',
    method: 'POST',
    path: '/api/chat',
    body: { transcript_id: id, messages: [{ role: 'user', content: 'Who rolled for perception?' }] },
    expect: 200,
  };
}

/**
 * A final utterance for the ingest entry. Its text carries the time it was sent (`@<ms>`)
 * so a viewer can measure how long it took to arrive.
 */
export function liveFinal(index: number, sentAt: number): Record<string, unknown> {
  return {
    utterance_id: `load:0:${index}`,
    text: `Line ${index} of the load test @${sentAt}`,
    speaker_tag: 'Load speaker',
    start_seconds: index,
    end_seconds: index + 0.9,
    final_index: index,
    is_final: true,
  };
}

/** The send time in a line made by liveFinal, or undefined. */
export function sentAtOf(text: unknown): number | undefined {
  const m = typeof text === 'string' ? /@(\d{13})$/.exec(text) : null;
  return m ? Number(m[1]) : undefined;
}

/** The `final_update` payload's lines (one per final, or many in an `initial`). */
export function linesOf(payload: unknown): { seq?: number; text?: string }[] {
  const p = payload as {
    lines?: { seq?: number; text?: string }[];
    text?: string;
    seq?: number;
    type?: string;
  };
  if (Array.isArray(p?.lines)) return p.lines;
  return p && typeof p === 'object' ? [p] : [];
}
