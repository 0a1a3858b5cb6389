import { describe, expect, it } from 'vitest';
import { estimateCostUsd } from './cost.ts';

describe('estimateCostUsd', () => {
  it('charges 0.10 USD per million input and 0.40 per million output tokens by default', () => {
    expect(estimateCostUsd(1_000_000, 0)).toBe(0.1);
    expect(estimateCostUsd(0, 1_000_000)).toBe(0.4);
    expect(estimateCostUsd(2_500_000, 500_000)).toBe(0.45);
  });

  it('rounds to 4 decimals', () => {
    // 1234 in + 567 out = 0.0001234 + 0.0002268 = 0.0003502
    expect(estimateCostUsd(1234, 567)).toBe(0.0004);
    expect(estimateCostUsd(100, 100)).toBe(0.0001);
    expect(estimateCostUsd(10, 10)).toBe(0);
  });

  it('uses configured prices', () => {
    expect(estimateCostUsd(1_000_000, 1_000_000, { inputPerMillionUsd: 2, outputPerMillionUsd: 8 })).toBe(10);
  });

  it('refuses negative or non-numeric token counts', () => {
    expect(() => estimateCostUsd(-1, 0)).toThrow(RangeError);
    expect(() => estimateCostUsd(Number.NaN, 0)).toThrow(RangeError);
  });
});
