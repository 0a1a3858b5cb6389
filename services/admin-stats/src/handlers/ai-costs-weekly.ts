import type { AdminAiCostsWeekly } from '@chronicler/contracts';
import type { UsageStore } from '../db/store.ts';
import { chartDays, everyDay, round4 } from './days.ts';

/**
 * svc.admin-stats.ai-costs-weekly: tokens per UTC day over the last 7 days (a row for each,
 * zeros included), and the day's cost: the sum of what each request recorded (the request rows'
 * `estimated_cost_usd`: a model's tokens at its prices, the offline fallback's $0), rounded to 4
 * decimals, so the chart and the rows agree.
 */
export const aiCostsWeekly =
  (store: UsageStore, now: () => Date = () => new Date()) =>
  async (): Promise<AdminAiCostsWeekly> => {
    const { dates, window } = chartDays(now());
    const rows = await store.tokensPerDay(window);
    return {
      status: 'success',
      days: everyDay(dates, rows, (date, r) => ({
        date,
        total_input_tokens: r?.input_tokens ?? 0,
        total_output_tokens: r?.output_tokens ?? 0,
        total_cost_usd: round4(r?.cost_usd ?? 0),
      })),
    };
  };
