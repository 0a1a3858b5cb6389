/**
 * Tools on one session's transcript: a line fixed by hand, display names for its speakers,
 * and exports of a session or a whole campaign.
 */
import { Type, type Static } from '@sinclair/typebox';
import { CHARACTER_LINKS_MAX, CHARACTER_NAME_MAX } from './characters.ts';
import { rpc } from './rpc.ts';
import { formatOffset, parseTranscriptLine, speakerLabel } from './transcript-lines.ts';

/** The longest text of one edited line. */
export const LINE_TEXT_MAX = 10_000;

/**
 * One line of a session as the tools see it: `line` is its place among the transcript's
 * non-blank lines (1-based), the id of PATCH /transcripts/{id}/lines/{line}. `speaker` is the
 * stored label ('Speaker 2' for a provider's number), `name` the display name given to it.
 */
export const SessionLineSchema = Type.Object({
  line: Type.Integer({ minimum: 1 }),
  seconds: Type.Union([Type.Number(), Type.Null()]),
  time: Type.Union([Type.String(), Type.Null()]),
  speaker: Type.Union([Type.String(), Type.Null()]),
  name: Type.Union([Type.String(), Type.Null()]),
  text: Type.String(),
  /** The line as it was before its first edit, or null when it was never edited. */
  original: Type.Union([Type.String(), Type.Null()]),
});
export type SessionLine = Static<typeof SessionLineSchema>;

/** The body of PATCH /transcripts/{id}/lines/{line}: new text and/or speaker, or `revert`. */
export const EditLineBodySchema = Type.Object(
  {
    text: Type.Optional(Type.String({ maxLength: LINE_TEXT_MAX, title: 'Line text' })),
    speaker: Type.Optional(Type.String({ maxLength: CHARACTER_NAME_MAX, title: 'Speaker' })),
    /** Puts the line back as it was before its first edit. */
    revert: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type EditLineBody = Static<typeof EditLineBodySchema>;

/** The line id in the path: digits only (any other id names no line: 404). */
export const LineParamsSchema = Type.Object({
  id: Type.String(),
  lineId: Type.String({ maxLength: 12 }),
});

/** What a line edit answers: the line now, and whether the session's summary predates an edit. */
export const EditLineResultSchema = Type.Object({
  line: SessionLineSchema,
  summary_outdated: Type.Boolean(),
});
export type EditLineResult = Static<typeof EditLineResultSchema>;

/** svc.transcript.edit-line: one line's new text and speaker (or its original back). */
export const editLineRpc = rpc(
  'transcript',
  'edit-line',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    line: Type.String(),
    text: Type.Optional(Type.String()),
    speaker: Type.Optional(Type.String()),
    revert: Type.Optional(Type.Boolean()),
  }),
  EditLineResultSchema,
);

/** The edited lines of a session (GET /transcripts/{id}/lines/edits), in line order. */
export const LineEditsSchema = Type.Object({ edits: Type.Array(SessionLineSchema) });
export type LineEdits = Static<typeof LineEditsSchema>;

/** svc.transcript.line-edits: the session's edited lines as they read now, with their originals. */
export const lineEditsRpc = rpc(
  'transcript',
  'line-edits',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), id: Type.String() }),
  LineEditsSchema,
);

/** One speaker label of a session and the name shown for it ('' when none is set). */
export const SpeakerNameSchema = Type.Object({
  label: Type.String({ minLength: 1, maxLength: CHARACTER_NAME_MAX }),
  name: Type.String({ maxLength: CHARACTER_NAME_MAX }),
  character: Type.String({ maxLength: CHARACTER_NAME_MAX }),
});
export type SpeakerName = Static<typeof SpeakerNameSchema>;

/**
 * GET /transcripts/{id}/speakers: every label of the session (with how many lines it has)
 * and its name; `proposals` are names the group's Who Is Who map suggests for labels left
 * unnamed.
 */
export const SessionSpeakersSchema = Type.Object({
  speakers: Type.Array(Type.Object({ ...SpeakerNameSchema.properties, lines: Type.Integer() })),
  proposals: Type.Array(SpeakerNameSchema),
});
export type SessionSpeakers = Static<typeof SessionSpeakersSchema>;

/** The body of PUT /transcripts/{id}/speakers: the whole map; a label with a blank name is unnamed. */
export const PutSpeakersBodySchema = Type.Object(
  {
    speakers: Type.Array(
      Type.Object({
        label: Type.String({ minLength: 1, maxLength: CHARACTER_NAME_MAX, title: 'Speaker label' }),
        name: Type.String({ maxLength: CHARACTER_NAME_MAX, title: 'Speaker name' }),
        character: Type.Optional(Type.String({ maxLength: CHARACTER_NAME_MAX, title: 'Character' })),
      }),
      { maxItems: CHARACTER_LINKS_MAX },
    ),
  },
  { additionalProperties: false },
);
export type PutSpeakersBody = Static<typeof PutSpeakersBodySchema>;

export const getSpeakersRpc = rpc(
  'transcript',
  'get-speakers',
  Type.Object({ owner_id: Type.String({ minLength: 1 }), id: Type.String() }),
  SessionSpeakersSchema,
);

export const putSpeakersRpc = rpc(
  'transcript',
  'put-speakers',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    speakers: PutSpeakersBodySchema.properties.speakers,
  }),
  SessionSpeakersSchema,
);

export const TRANSCRIPT_EXPORT_FORMATS = ['md', 'txt', 'srt', 'vtt', 'docx', 'json'] as const;
export type TranscriptExportFormat = (typeof TRANSCRIPT_EXPORT_FORMATS)[number];
export const GROUP_EXPORT_FORMATS = ['md', 'zip'] as const;
export type GroupExportFormat = (typeof GROUP_EXPORT_FORMATS)[number];

/** The header that says how many lines a subtitle export left out for want of a time. */
export const UNTIMED_LINES_HEADER = 'x-untimed-lines';

export const TranscriptExportQuerySchema = Type.Object({
  format: Type.Union(
    TRANSCRIPT_EXPORT_FORMATS.map((f) => Type.Literal(f)),
    { title: 'format' },
  ),
});
export const GroupExportQuerySchema = Type.Object({
  format: Type.Union(
    GROUP_EXPORT_FORMATS.map((f) => Type.Literal(f)),
    { title: 'format' },
  ),
});

/** A rendered export: the file's name, type and bytes (base64 for binary formats). */
export const ExportFileSchema = Type.Object({
  filename: Type.String(),
  content_type: Type.String(),
  encoding: Type.Union([Type.Literal('utf8'), Type.Literal('base64')]),
  body: Type.String(),
  /** Lines a subtitle format could not place (no time); 0 for other formats. */
  untimed_lines: Type.Integer({ minimum: 0 }),
});
export type ExportFile = Static<typeof ExportFileSchema>;

export const exportTranscriptRpc = rpc(
  'transcript',
  'export',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    format: TranscriptExportQuerySchema.properties.format,
    /** The app's address (PUBLIC_URL, else the request's origin): an exported Markdown file's links are absolute. */
    base_url: Type.Optional(Type.String()),
  }),
  ExportFileSchema,
);

export const exportGroupRpc = rpc(
  'transcript',
  'export-group',
  Type.Object({
    owner_id: Type.String({ minLength: 1 }),
    id: Type.String(),
    format: GroupExportQuerySchema.properties.format,
    /** The app's address (PUBLIC_URL, else the request's origin): an exported Markdown file's links are absolute. */
    base_url: Type.Optional(Type.String()),
  }),
  ExportFileSchema,
);

/**
 * The content with each named speaker's label replaced by its name, line by line; lines of
 * unnamed speakers and prose stay exactly as stored.
 */
export function applySpeakerNames(content: string, names: ReadonlyMap<string, string>): string {
  if (names.size === 0) return content;
  return content
    .split('\n')
    .map((raw) => {
      const line = parseTranscriptLine(raw);
      const name = line?.speaker ? names.get(speakerLabel(line.speaker)!) : undefined;
      if (!line || !name) return raw;
      const time = line.seconds === null ? '' : `[${formatOffset(line.seconds)}] `;
      return `${time}${name}: ${line.text}`;
    })
    .join('\n');
}
