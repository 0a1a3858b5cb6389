import type { AdminTranscriptionHours } from '@chronicler/contracts';
import type { UsageStore } from '../db/store.ts';
import { chartDays, everyDay, round4 } from './days.ts';

/**
 * svc.admin-stats.transcription-hours-per-day: hours transcribed (uploads and live sessions,
 * every user) per UTC day over the last 7 days, a row for each, zeros included; with them the
 * speech stream hours (every speaker's provider streams, what streaming providers bill) and
 * how many speakers they were.
 */
export const transcriptionHoursPerDay =
  (store: UsageStore, now: () => Date = () => new Date()) =>
  async (): Promise<AdminTranscriptionHours> => {
    const { dates, window } = chartDays(now());
    const [rows, streams] = await Promise.all([
      store.transcriptionSecondsPerDay(window),
      store.streamSecondsPerDay(window),
    ]);
    const streamDays = new Map(streams.map((s) => [s.date, s]));
    return {
      status: 'success',
      transcription_hours_per_day: everyDay(dates, rows, (date, r) => ({
        date,
        transcription_hours: round4((r?.seconds ?? 0) / 3600),
        stream_hours: round4((streamDays.get(date)?.seconds ?? 0) / 3600),
        stream_speakers: streamDays.get(date)?.speakers ?? 0,
      })),
    };
  };
