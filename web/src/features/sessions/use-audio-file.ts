import { useQuery } from '@tanstack/react-query';
import { useRef, useState, type ChangeEvent } from 'react';
import { getAppConfig } from '../../api/config.ts';
import { queryKeys } from '../../app/query-client.ts';
import { audioFileError } from './session-form-rules.ts';

/**
 * The recording chosen for upload: a file the rules refuse is reported and never passed
 * on. Without a speech provider the recording is kept untranscribed (`untranscribed`); the
 * input is unavailable only when the configuration could not be read.
 */
export function useAudioFile(onChange: (file: File | null) => void) {
  const inputRef = useRef<HTMLInputElement>(null);
  const [error, setError] = useState<string | null>(null);
  const config = useQuery({ queryKey: queryKeys.appConfig, queryFn: getAppConfig });
  const provider = config.data?.speech_provider;
  // A failed config lookup leaves no way to know an upload would be accepted: say so.
  const unavailable = config.isError;
  const untranscribed = config.isSuccess && !provider;

  const choose = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0] ?? null;
    if (!file) {
      setError(null);
      onChange(null);
      return;
    }
    const problem = audioFileError(file);
    setError(problem);
    if (problem) {
      // The rejected file must not be sent with the form.
      event.target.value = '';
      onChange(null);
      return;
    }
    onChange(file);
  };

  const clear = () => {
    if (inputRef.current) inputRef.current.value = '';
    setError(null);
    onChange(null);
  };

  return { inputRef, error, unavailable, untranscribed, checking: config.isPending, choose, clear };
}
