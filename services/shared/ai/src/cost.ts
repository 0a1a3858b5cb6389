/**
 * What an AI request costs. Prices are configuration (models are retired and repriced;
 * never a constant at a call site): USD per million input and output tokens. The
 * specification's defaults are 0.10 and 0.40, and the estimate is rounded to 4 decimals.
 */
export interface TokenPrices {
  inputPerMillionUsd: number;
  outputPerMillionUsd: number;
}

export const DEFAULT_PRICES: TokenPrices = { inputPerMillionUsd: 0.1, outputPerMillionUsd: 0.4 };

export function estimateCostUsd(
  inputTokens: number,
  outputTokens: number,
  prices: TokenPrices = DEFAULT_PRICES,
): number {
  if (
    !Number.isFinite(inputTokens) ||
    !Number.isFinite(outputTokens) ||
    inputTokens < 0 ||
    outputTokens < 0
  ) {
    throw new RangeError('token counts must be non-negative numbers');
  }
  const usd =
    (inputTokens * prices.inputPerMillionUsd + outputTokens * prices.outputPerMillionUsd) / 1_000_000;
  // Round half away from zero at 4 decimals; the epsilon keeps 0.00005 from becoming 0.0000 via float error.
  return Math.round((usd + Number.EPSILON) * 10_000) / 10_000;
}
