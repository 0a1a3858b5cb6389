import type { AdminAiCostsWeekly } from '@chronicler/contracts';
import type { UsageStore } from '../db/store.ts';
import { chartDays, everyDay, tokenCost, type TokenPrices } from './days.ts';

/**
 * svc.admin-stats.ai-costs-weekly: tokens per UTC day over the last 7 days (a row for each,
 * zeros included), and their cost at the configured prices, rounded to 4 decimals.
 */
export const aiCostsWeekly =
  (store: UsageStore, prices: TokenPrices, now: () => Date = () => new Date()) =>
  async (): Promise<AdminAiCostsWeekly> => {
    const { dates, window } = chartDays(now());
    const rows = await store.tokensPerDay(window);
    return {
      status: 'success',
      days: everyDay(dates, rows, (date, r) => ({
        date,
        total_input_tokens: r?.input_tokens ?? 0,
        total_output_tokens: r?.output_tokens ?? 0,
        total_cost_usd: tokenCost(r?.input_tokens ?? 0, r?.output_tokens ?? 0, prices),
      })),
    };
  };
