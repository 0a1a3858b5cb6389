import { QueryClient } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { queryKeys } from '../app/query-client.ts';
import { syncSessionInCaches } from './transcripts.ts';
import type { TranscriptSummaryItem } from './types.ts';

const item = (over: Partial<TranscriptSummaryItem>): TranscriptSummaryItem =>
  ({
    id: 's1',
    name: 'Session 1',
    session_timestamp: '2026-11-20T00:00:00.000Z',
    last_activity: '2026-11-20T00:00:00.000Z',
    status: 'ended',
    group_id: null,
    summary: '',
    preview: '',
    transcription_status: 'processing',
    transcription_error: '',
    audio_seconds: 0,
    summary_status: 'none',
    ...over,
  }) as TranscriptSummaryItem;

describe('syncSessionInCaches', () => {
  it('reads the list again when a transcription finishes, since a detail carries no preview', () => {
    const client = new QueryClient();
    client.setQueryData(queryKeys.transcripts, [item({})]);
    const { preview: _none, ...detail } = item({ transcription_status: 'completed', audio_seconds: 7 });
    syncSessionInCaches(client, detail);
    const state = client.getQueryState(queryKeys.transcripts);
    expect(state?.isInvalidated).toBe(true);
    const [listed] = client.getQueryData<TranscriptSummaryItem[]>(queryKeys.transcripts)!;
    expect(listed!.transcription_status).toBe('completed');
  });

  it('leaves the list as it is for a rename', () => {
    const client = new QueryClient();
    client.setQueryData(queryKeys.transcripts, [item({ transcription_status: 'completed' })]);
    const { preview: _none, ...renamed } = item({ transcription_status: 'completed', name: 'Renamed' });
    syncSessionInCaches(client, renamed);
    expect(client.getQueryState(queryKeys.transcripts)?.isInvalidated).toBe(false);
    expect(client.getQueryData<TranscriptSummaryItem[]>(queryKeys.transcripts)![0]!.name).toBe('Renamed');
  });
});
