import type { AdminTranscriptionHours } from '@chronicler/contracts';
import type { UsageStore } from '../db/store.ts';
import { chartDays, everyDay, round4 } from './days.ts';

/**
 * svc.admin-stats.transcription-hours-per-day: hours transcribed (uploads and live sessions,
 * every user) per UTC day over the last 7 days, a row for each, zeros included.
 */
export const transcriptionHoursPerDay =
  (store: UsageStore, now: () => Date = () => new Date()) =>
  async (): Promise<AdminTranscriptionHours> => {
    const { dates, window } = chartDays(now());
    const rows = await store.transcriptionSecondsPerDay(window);
    return {
      status: 'success',
      transcription_hours_per_day: everyDay(dates, rows, (date, r) => ({
        date,
        transcription_hours: round4((r?.seconds ?? 0) / 3600),
      })),
    };
  };
