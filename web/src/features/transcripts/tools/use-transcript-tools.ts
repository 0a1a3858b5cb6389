import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import toast from 'react-hot-toast';
import { errorDetail } from '../../../api/http.ts';
import {
  editLine,
  getLineEdits,
  getSpeakers,
  type LineEdits,
  type SessionLine,
} from '../../../api/transcript-tools.ts';
import { queryKeys } from '../../../app/query-client.ts';
import type { ViewLine } from '../transcript-view.ts';
import type { LineTools } from './EditableRow.tsx';

export const toolKeys = {
  speakers: (id: string) => ['transcripts', 'speakers', id] as const,
  edits: (id: string) => ['transcripts', 'line-edits', id] as const,
  /** Who had the spotlight: a new name or an edited speaker counts it again. */
  spotlight: (id: string) => ['transcripts', 'spotlight', id] as const,
};

/**
 * Line n (the n-th final line) with its edit's text and speaker, and each label shown by its
 * name; lines with neither stay the same objects, so their rows do not render again.
 */
export function withNamesAndEdits(
  lines: ViewLine[],
  edits: ReadonlyMap<number, Pick<SessionLine, 'speaker' | 'text'>>,
  names: ReadonlyMap<string, string>,
): ViewLine[] {
  return lines.map((line, index) => {
    const edit = edits.get(index + 1);
    const speaker = edit ? edit.speaker : line.speaker;
    const name = speaker === null ? undefined : names.get(speaker);
    if (!edit && !name) return line;
    return { ...line, text: edit ? edit.text : line.text, speaker: name ?? speaker };
  });
}

/** The display name of each named label ('Speaker 2' to 'Vex'). */
export function useSpeakerNames(sessionId: string): ReadonlyMap<string, string> {
  const speakers = useQuery({
    queryKey: toolKeys.speakers(sessionId),
    queryFn: () => getSpeakers(sessionId),
  });
  return useMemo(
    () => new Map((speakers.data?.speakers ?? []).filter((s) => s.name).map((s) => [s.label, s.name])),
    [speakers.data],
  );
}

/**
 * The viewer's lines as the user named and edited them: each label shows its display name,
 * an edited line its new text (a live session's socket still holds the old one), and the
 * tools to edit a final line in place. Line n is the n-th final line, as the server counts.
 */
export function useTranscriptTools(
  sessionId: string,
  lines: ViewLine[],
): { lines: ViewLine[]; tools: LineTools } {
  const queryClient = useQueryClient();
  const names = useSpeakerNames(sessionId);
  const edits = useQuery({ queryKey: toolKeys.edits(sessionId), queryFn: () => getLineEdits(sessionId) });
  const byLine = useMemo(() => new Map((edits.data?.edits ?? []).map((e) => [e.line, e])), [edits.data]);

  const shown = useMemo(() => withNamesAndEdits(lines, byLine, names), [lines, byLine, names]);
  const numbers = useMemo(() => new Map(lines.map((line, index) => [line.key, index + 1])), [lines]);

  const mutation = useMutation({
    mutationFn: (v: { lineNo: number; text?: string; revert?: true }) =>
      editLine(sessionId, v.lineNo, v.revert ? { revert: true } : { text: v.text }),
    onSuccess: (result) => {
      queryClient.setQueryData<LineEdits>(toolKeys.edits(sessionId), (old) => {
        const rest = (old?.edits ?? []).filter((e) => e.line !== result.line.line);
        const next = result.line.original === null ? rest : [...rest, result.line];
        return { edits: next.sort((a, b) => a.line - b.line) };
      });
      void queryClient.invalidateQueries({ queryKey: queryKeys.transcript(sessionId), exact: true });
      void queryClient.invalidateQueries({ queryKey: toolKeys.speakers(sessionId) });
      void queryClient.invalidateQueries({ queryKey: toolKeys.spotlight(sessionId) });
    },
    onError: (cause) => {
      console.error('Failed to save the line', cause);
      toast.error(errorDetail(cause, 'Failed to save the line'));
    },
  });

  const { mutateAsync } = mutation;
  const tools = useMemo<LineTools>(
    () => ({
      lineOf: (key) => {
        const lineNo = numbers.get(key);
        return lineNo === undefined ? undefined : { lineNo, original: byLine.get(lineNo)?.original ?? null };
      },
      save: (lineNo, text) => mutateAsync({ lineNo, text }),
      revert: (lineNo) => mutateAsync({ lineNo, revert: true }),
    }),
    [numbers, byLine, mutateAsync],
  );
  return { lines: shown, tools };
}
