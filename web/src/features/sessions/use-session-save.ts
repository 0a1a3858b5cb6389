import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { useNavigate } from 'react-router-dom';
import { isApiError } from '../../api/http.ts';
import {
  createAudioSession,
  createManualSession,
  updateSession,
  type SessionUpdatePayload,
} from '../../api/sessions.ts';
import type { TranscriptDetail } from '../../api/types.ts';
import { queryKeys } from '../../app/query-client.ts';
import { sessionDateIso, type SessionFormValues } from './session-form-rules.ts';

const SAVE_FAILED = 'Failed to save session. Please try again.';

/** What to show for a failed save: the server's own reason when it gave one. */
function saveFailureMessage(error: unknown): string {
  return isApiError(error) && error.detail ? error.detail : SAVE_FAILED;
}

/**
 * Creating a session (typed, or with a recording whose upload reports its progress) or
 * saving an edited one; on success the lists are refreshed and the user is taken on, on
 * failure the form shows why (`formError`).
 */
export function useSessionSave(target: { groupId?: string; editing: TranscriptDetail | null }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const { groupId, editing } = target;
  const [formError, setFormError] = useState<string | null>(null);
  const [progress, setProgress] = useState<number | null>(null);

  const refreshCaches = async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: queryKeys.transcripts }),
      queryClient.invalidateQueries({ queryKey: queryKeys.groups }),
    ]);
  };

  const create = useMutation({
    mutationFn: async (form: SessionFormValues) => {
      const common = {
        name: form.name.trim(),
        session_date: sessionDateIso(form.date),
        ...(form.summary.trim() ? { summary: form.summary.trim() } : {}),
        ...(groupId ? { group_id: groupId } : {}),
      };
      if (form.audio) {
        setProgress(0);
        return createAudioSession({ ...common, audio: form.audio }, setProgress);
      }
      return createManualSession({
        ...common,
        ...(form.transcript.trim() ? { transcript: form.transcript } : {}),
      });
    },
    // An upload of up to 500 MB is not something to send twice behind the user's back.
    retry: false,
    onSuccess: async (_session, form) => {
      toast.success(form.audio ? 'Audio session created successfully' : 'Session created successfully');
      await refreshCaches();
      void navigate(groupId ? `/groups/${groupId}` : '/', { replace: true });
    },
    onError: (error, form) => {
      console.error(form.audio ? 'Failed to create audio session' : 'Failed to create session', error);
      toast.error(form.audio ? 'Failed to create audio session' : 'Failed to create session');
      setFormError(saveFailureMessage(error));
    },
    onSettled: () => setProgress(null),
  });

  const update = useMutation({
    mutationFn: (payload: SessionUpdatePayload) => updateSession(editing!.id, payload),
    onSuccess: async (updated, payload) => {
      queryClient.setQueryData<TranscriptDetail>(queryKeys.transcript(editing!.id), (old) =>
        old ? { ...old, ...updated, content: payload.transcript ?? old.content } : old,
      );
      toast.success('Session updated successfully');
      await refreshCaches();
      void navigate(`/sessions/${editing!.id}`, { replace: true });
    },
    onError: (error) => {
      console.error('Failed to update session', error);
      toast.error('Failed to update session');
      setFormError(saveFailureMessage(error));
    },
  });

  return {
    submitting: create.isPending || update.isPending,
    progress,
    formError,
    setFormError,
    create: create.mutate,
    update: update.mutate,
  };
}
