import { describe, expect, it } from 'vitest';
import { counter, registry } from './metrics.ts';

describe('counter', () => {
  it('registers a counter served with the rest, and gives the same one when asked again', async () => {
    const first = counter('chronicler_test_things_total', 'Things, for the test');
    const again = counter('chronicler_test_things_total', 'Things, for the test');
    first.inc();
    again.inc(2);
    const text = await registry.metrics();
    expect(text).toContain('# HELP chronicler_test_things_total Things, for the test');
    expect(text).toMatch(/^chronicler_test_things_total 3$/m);
  });

  it('takes label names', async () => {
    counter('chronicler_test_labelled_total', 'Labelled things', ['kind']).inc({ kind: 'a' });
    expect(await registry.metrics()).toContain('chronicler_test_labelled_total{kind="a"} 1');
  });
});
