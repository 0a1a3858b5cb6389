/**
 * Who had the spotlight: per speaker of a session, the time spoken, the lines, the share of
 * the session and the longest stretch without speaking; per player of a campaign, the same
 * across its sessions with how many sessions ago each last had a large share. The game
 * master's own talk is kept apart from the players'.
 *
 * The figures come from the stored lines (`[HH:MM:SS] Speaker: text`), by these rules:
 *
 * - A line lasts until the next line starts, at most SPOTLIGHT_LINE_CAP_S seconds. The last
 *   line, and a line followed by a longer pause, lasts its words at SECONDS_PER_WORD each
 *   (at least 1 s, at most the cap, never past the next line).
 * - A session where any speaker's line has no time is counted by lines (`basis: 'lines'`, with a
 *   note that says so): shares are of the lines, the stretches are counted in lines.
 * - Lines of the table in chorus ("ALL", "Everyone", "Sam and Liam") and prose count for nobody.
 * - Speakers are grouped by the name shown for them (their label when unnamed): two labels
 *   named "Matt" are one player.
 * - The game master: the speaker whose label, name or character says so (GM, DM, Game Master,
 *   Dungeon Master, Narrator, Storyteller); else, when the Who Is Who map gives others
 *   characters, the one who talks most without a character (the narrator, as the map's own
 *   inference assumes); else nobody is marked (every speaker is a player).
 * - A large share: a player's share of the players' talk at least their even share (1 / the
 *   number of players in that session).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { inferCharacterMap, type CharacterLink } from './characters.ts';
import { RUNS_THE_GAME } from './passages.ts';
import { rpc } from './rpc.ts';
import { parseTranscriptLine, speakerLabel } from './transcript-lines.ts';

/** The longest a line is taken to last (seconds): past that, a pause, not talk. */
export const SPOTLIGHT_LINE_CAP_S = 30;
/** Seconds per word for a line whose end is not known (150 words a minute). */
export const SECONDS_PER_WORD = 0.4;
/** What a session counted by lines says about it. */
export const SPOTLIGHT_BY_LINES_NOTE =
  'This session has lines without times: the spotlight is counted by lines.';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const SpotlightRoleSchema = Type.Union([Type.Literal('gm'), Type.Literal('player')]);
export type SpotlightRole = Static<typeof SpotlightRoleSchema>;

/** How the game master was known (null: nobody is marked). */
export const GmBySchema = Type.Union([
  Type.Literal('name'),
  Type.Literal('who-is-who'),
  Type.Literal('most-talk'),
  Type.Null(),
]);

/** One speaker of one session. */
export const SpeakerSpotlightSchema = Type.Object({
  /** The name shown (the label when unnamed): what one player is across labels and sessions. */
  key: Type.String(),
  labels: Type.Array(Type.String()),
  name: Type.String(),
  character: Type.String(),
  role: SpotlightRoleSchema,
  /** Seconds spoken (null for a session counted by lines). */
  seconds: Nullable(Type.Number()),
  lines: Type.Integer({ minimum: 0 }),
  /** Share of the whole session's talk, 0 to 1 (by time, or by lines). */
  share: Type.Number({ minimum: 0, maximum: 1 }),
  /** Share of the players' talk (null for the game master). */
  player_share: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  /** The longest stretch without speaking, from the session's start to its end (null by lines). */
  longest_silence_seconds: Nullable(Type.Number()),
  /** The same in lines of others. */
  longest_silence_lines: Type.Integer({ minimum: 0 }),
});
export type SpeakerSpotlight = Static<typeof SpeakerSpotlightSchema>;

/** GET /api/transcripts/{id}/spotlight */
export const SessionSpotlightSchema = Type.Object({
  transcript_id: Type.String(),
  name: Type.String(),
  session_timestamp: Type.String(),
  basis: Type.Union([Type.Literal('time'), Type.Literal('lines')]),
  /** '' or SPOTLIGHT_BY_LINES_NOTE, or that the session has no speaker lines yet. */
  note: Type.String(),
  total_seconds: Nullable(Type.Number()),
  total_lines: Type.Integer({ minimum: 0 }),
  /** Lines that name no speaker (prose): counted nowhere. */
  untagged_lines: Type.Integer({ minimum: 0 }),
  gm: Type.Union([SpeakerSpotlightSchema, Type.Null()]),
  gm_by: GmBySchema,
  /** Most talk first. */
  players: Type.Array(SpeakerSpotlightSchema),
});
export type SessionSpotlight = Static<typeof SessionSpotlightSchema>;

/** One player (or game master) of a campaign across its sessions. */
export const CampaignSpeakerSchema = Type.Object({
  key: Type.String(),
  name: Type.String(),
  character: Type.String(),
  role: SpotlightRoleSchema,
  /** Sessions they spoke in. */
  sessions: Type.Integer({ minimum: 0 }),
  /** Seconds spoken in the sessions with times. */
  seconds: Type.Number({ minimum: 0 }),
  lines: Type.Integer({ minimum: 0 }),
  /** Mean share of the session's talk over all the campaign's sessions (0 where absent). */
  share: Type.Number({ minimum: 0, maximum: 1 }),
  /** Mean share of the players' talk (null for the game master). */
  player_share: Nullable(Type.Number({ minimum: 0, maximum: 1 })),
  /** Sessions played since the last one with a large share (0: the latest); null: never had one. */
  sessions_since_large_share: Nullable(Type.Integer({ minimum: 0 })),
  /** Their share of each session, in the order of play (0 where absent). */
  per_session: Type.Array(Type.Number({ minimum: 0, maximum: 1 })),
});
export type CampaignSpeaker = Static<typeof CampaignSpeakerSchema>;

/** GET /api/groups/{id}/spotlight */
export const GroupSpotlightSchema = Type.Object({
  group_id: Type.String(),
  /** The campaign's sessions, oldest first. */
  sessions: Type.Array(
    Type.Object({
      transcript_id: Type.String(),
      name: Type.String(),
      session_timestamp: Type.String(),
      basis: Type.Union([Type.Literal('time'), Type.Literal('lines')]),
    }),
  ),
  gm: Type.Array(CampaignSpeakerSchema),
  /** Least recent large share first, then least talk. */
  players: Type.Array(CampaignSpeakerSchema),
});
export type GroupSpotlight = Static<typeof GroupSpotlightSchema>;

const ownerAndId = Type.Object({ owner_id: Type.String({ minLength: 1 }), id: Type.String() });

/** svc.transcript.spotlight: one of the owner's sessions (not_found for any other). */
export const sessionSpotlightRpc = rpc('transcript', 'spotlight', ownerAndId, SessionSpotlightSchema);

/** svc.transcript.group-spotlight: one of the owner's campaigns (not_found for any other). */
export const groupSpotlightRpc = rpc('transcript', 'group-spotlight', ownerAndId, GroupSpotlightSchema);

/** What the spotlight reads of a session besides its text. */
export interface SpotlightInput {
  transcript_id: string;
  name: string;
  session_timestamp: string;
  content: string;
  /** The session's speaker names (label → name, character). */
  names: ReadonlyMap<string, { name: string; character: string }>;
  /** The campaign's Who Is Who links (speaker tag or name → character). */
  links?: readonly CharacterLink[];
}

interface Turn {
  key: string;
  start: number | null;
  end: number | null;
}

const lower = (s: string) => s.toLowerCase();

function wordsOf(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

/** "ALL: Yes!", "Sam and Liam: No": the table in chorus, nobody's spotlight (counted as untagged). */
const CHORUS = /^(?:all|everyone|everybody)$|\sand\s/i;

/** The speaker a line counts for, or null for prose and the table in chorus. */
function speakerOf(line: { speaker: string | null }): string | null {
  const label = speakerLabel(line.speaker);
  return label && !CHORUS.test(label) ? label : null;
}

/** Each tagged line's speaker key and, when timed, its start and end (see the rules above). */
function turnsOf(
  content: string,
  keyOf: (label: string) => string,
): { turns: Turn[]; untagged: number; timed: boolean } {
  const parsed = content
    .split('\n')
    .map((raw) => parseTranscriptLine(raw))
    .filter((l) => l !== null);
  const turns: Turn[] = [];
  let untagged = 0;
  let timed = true;
  parsed.forEach((line, i) => {
    const label = speakerOf(line);
    if (!label) {
      untagged += 1;
      return;
    }
    if (line.seconds === null) timed = false;
    let end: number | null = null;
    if (line.seconds !== null) {
      const next = parsed.slice(i + 1).find((l) => l.seconds !== null)?.seconds ?? null;
      const gap = next === null ? null : Math.max(0, next - line.seconds);
      const byWords = Math.min(SPOTLIGHT_LINE_CAP_S, Math.max(1, wordsOf(line.text) * SECONDS_PER_WORD));
      end =
        line.seconds +
        (gap !== null && gap <= SPOTLIGHT_LINE_CAP_S ? gap : Math.min(byWords, gap ?? byWords));
    }
    turns.push({ key: keyOf(label), start: line.seconds, end });
  });
  return { turns, untagged, timed };
}

/** Who runs the game in one session (see the rules above). */
function findGm(speakers: { key: string; labels: string[]; character: string; talk: number }[]): {
  key: string | null;
  by: Static<typeof GmBySchema>;
} {
  const says = speakers.find((s) =>
    [s.key, s.character, ...s.labels].some((v) => v && RUNS_THE_GAME.test(v)),
  );
  if (says) return { key: says.key, by: 'name' };
  if (!speakers.some((s) => s.character)) return { key: null, by: null };
  const narrator = [...speakers].filter((s) => !s.character).sort((a, b) => b.talk - a.talk)[0];
  return narrator ? { key: narrator.key, by: 'who-is-who' } : { key: null, by: null };
}

const round = (n: number, places = 4) => Math.round(n * 10 ** places) / 10 ** places;

/** The spotlight of one session (a pure function: the service and the live viewer share it). */
export function sessionSpotlight(input: SpotlightInput): SessionSpotlight {
  const links = input.links ?? [];
  const characterOfTag = new Map(links.map((l) => [lower(l.speaker), l.character]));
  const keyOf = (label: string) => input.names.get(label)?.name || label;
  const { turns, untagged, timed } = turnsOf(input.content, keyOf);
  const basis = timed && turns.length > 0 ? 'time' : 'lines';
  const inferred = new Map(inferCharacterMap(input.content).map((l) => [lower(l.speaker), l.character]));

  const bySpeaker = new Map<string, { key: string; labels: string[]; seconds: number; lines: number }>();
  for (const label of new Set(
    input.content
      .split('\n')
      .map((raw) => speakerOf(parseTranscriptLine(raw) ?? { speaker: null }))
      .filter((l) => l !== null),
  )) {
    const key = keyOf(label);
    const s = bySpeaker.get(key) ?? { key, labels: [], seconds: 0, lines: 0 };
    s.labels.push(label);
    bySpeaker.set(key, s);
  }
  for (const t of turns) {
    const s = bySpeaker.get(t.key)!;
    s.lines += 1;
    if (t.start !== null && t.end !== null) s.seconds += t.end - t.start;
  }
  const characterOf = (s: { key: string; labels: string[] }) =>
    s.labels.map((l) => input.names.get(l)?.character).find(Boolean) ??
    [s.key, ...s.labels].map((v) => characterOfTag.get(lower(v))).find(Boolean) ??
    [s.key, ...s.labels].map((v) => inferred.get(lower(v))).find(Boolean) ??
    '';
  const talkOf = (s: { seconds: number; lines: number }) => (basis === 'time' ? s.seconds : s.lines);
  const speakers = [...bySpeaker.values()].map((s) => ({ ...s, character: characterOf(s), talk: talkOf(s) }));
  const gm = findGm(speakers);
  const total = speakers.reduce((n, s) => n + s.talk, 0);
  const playerTotal = speakers.filter((s) => s.key !== gm.key).reduce((n, s) => n + s.talk, 0);
  const first = turns.find((t) => t.start !== null)?.start ?? 0;
  const last = Math.max(first, ...turns.map((t) => t.end ?? 0));

  const silence = (key: string) => {
    let seconds = 0;
    let lines = 0;
    let run = 0;
    let since = first;
    for (const t of turns) {
      if (t.key !== key) {
        run += 1;
        continue;
      }
      lines = Math.max(lines, run);
      run = 0;
      if (t.start !== null) seconds = Math.max(seconds, t.start - since);
      since = t.end ?? since;
    }
    return { seconds: Math.max(seconds, last - since), lines: Math.max(lines, run) };
  };

  const out = speakers.map((s): SpeakerSpotlight => {
    const quiet = silence(s.key);
    const isGm = s.key === gm.key;
    return {
      key: s.key,
      labels: s.labels,
      name: s.labels.map((l) => input.names.get(l)?.name).find(Boolean) ?? '',
      character: s.character,
      role: isGm ? 'gm' : 'player',
      seconds: basis === 'time' ? round(s.seconds, 1) : null,
      lines: s.lines,
      share: total > 0 ? round(s.talk / total) : 0,
      player_share: isGm ? null : playerTotal > 0 ? round(s.talk / playerTotal) : 0,
      longest_silence_seconds: basis === 'time' ? round(quiet.seconds, 1) : null,
      longest_silence_lines: quiet.lines,
    };
  });
  out.sort((a, b) => b.share - a.share || a.key.localeCompare(b.key));
  return {
    transcript_id: input.transcript_id,
    name: input.name,
    session_timestamp: input.session_timestamp,
    basis,
    note:
      turns.length === 0
        ? 'This session has no lines that name a speaker yet.'
        : basis === 'lines'
          ? SPOTLIGHT_BY_LINES_NOTE
          : '',
    total_seconds: basis === 'time' ? round(last - first, 1) : null,
    total_lines: turns.length,
    untagged_lines: untagged,
    gm: out.find((s) => s.role === 'gm') ?? null,
    gm_by: gm.by,
    players: out.filter((s) => s.role === 'player'),
  };
}

/** The campaign's spotlight from its sessions' spotlights, oldest first. */
export function groupSpotlight(groupId: string, sessions: readonly SessionSpotlight[]): GroupSpotlight {
  const all = new Map<
    string,
    CampaignSpeaker & { shares: number[]; playerShares: number[]; large: number }
  >();
  sessions.forEach((s, i) => {
    const evenShare = s.players.length > 0 ? 1 / s.players.length : 1;
    for (const sp of [...(s.gm ? [s.gm] : []), ...s.players]) {
      const c = all.get(sp.key) ?? {
        key: sp.key,
        name: sp.name,
        character: sp.character,
        role: sp.role,
        sessions: 0,
        seconds: 0,
        lines: 0,
        share: 0,
        player_share: null,
        sessions_since_large_share: null,
        per_session: sessions.map(() => 0),
        shares: [],
        playerShares: [],
        large: -1,
      };
      c.sessions += 1;
      c.seconds += sp.seconds ?? 0;
      c.lines += sp.lines;
      c.per_session[i] = sp.share;
      // The latest session decides the role, name and character shown.
      c.role = sp.role;
      c.name = sp.name || c.name;
      c.character = sp.character || c.character;
      if (sp.player_share !== null) {
        c.playerShares[i] = sp.player_share;
        if (sp.player_share >= evenShare - 1e-9) c.large = i;
      }
      all.set(sp.key, c);
    }
  });
  const n = Math.max(1, sessions.length);
  const speakers = [...all.values()].map(({ shares: _s, playerShares, large, ...c }): CampaignSpeaker => ({
    ...c,
    seconds: round(c.seconds, 1),
    share: round(c.per_session.reduce((a, b) => a + b, 0) / n),
    player_share:
      c.role === 'gm' ? null : round(sessions.reduce((a, _, i) => a + (playerShares[i] ?? 0), 0) / n),
    sessions_since_large_share: c.role === 'gm' || large < 0 ? null : sessions.length - 1 - large,
  }));
  const since = (c: CampaignSpeaker) => c.sessions_since_large_share ?? Number.MAX_SAFE_INTEGER;
  return {
    group_id: groupId,
    sessions: sessions.map((s) => ({
      transcript_id: s.transcript_id,
      name: s.name,
      session_timestamp: s.session_timestamp,
      basis: s.basis,
    })),
    gm: speakers.filter((c) => c.role === 'gm'),
    players: speakers
      .filter((c) => c.role === 'player')
      .sort((a, b) => since(b) - since(a) || (a.player_share ?? 0) - (b.player_share ?? 0)),
  };
}
