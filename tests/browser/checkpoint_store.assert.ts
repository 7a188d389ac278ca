// Test-side helpers of the checkpoint store specs: the summaries the page returns
// (checkpoint_store.helpers.ts) and the bit-exactness assertion.
import { expect } from './fixtures';

export interface Compare {
  found: boolean;
  step: number;
  mismatches: Record<string, number>;
  extraTensors?: string[];
  metaEqual: boolean;
}
export interface Err {
  code: string;
  message: string;
  runId?: string;
  step?: number;
  tensor?: string;
  chunk?: number;
  keptStep?: number;
  causeName?: string;
}

/** Loaded checkpoint equals the saved one bit for bit (every tensor, no extras, same metadata). */
export function expectBitExact(c: Compare, step: number) {
  expect(c.found, JSON.stringify(c)).toBe(true);
  expect(c.step).toBe(step);
  expect(Object.keys(c.mismatches).length).toBeGreaterThan(0);
  for (const [name, n] of Object.entries(c.mismatches)) expect(n, `bit mismatches in ${name}`).toBe(0);
  expect(c.extraTensors).toEqual([]);
  expect(c.metaEqual).toBe(true);
}
