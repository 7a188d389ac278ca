// fmtDuration (src/util/duration.ts): rounding happens before the value is split into units, so a
// carry moves into the next unit ("4 min 0 s", never "3 min 60 s").
import { describe, expect, it } from 'vitest';
import { fmtDuration, fmtUtc } from '../../src/util/duration';

describe('fmtDuration', () => {
  it('shows seconds, minutes and seconds, hours and minutes', () => {
    expect(fmtDuration(0)).toBe('0 s');
    expect(fmtDuration(42)).toBe('42 s');
    expect(fmtDuration(192)).toBe('3 min 12 s');
    expect(fmtDuration(3900)).toBe('1 h 5 min');
  });

  it('carries a rounded-up unit into the next one', () => {
    expect(fmtDuration(239.6)).toBe('4 min 0 s');
    expect(fmtDuration(59.6)).toBe('1 min 0 s');
    expect(fmtDuration(59.4)).toBe('59 s');
    expect(fmtDuration(3599.6)).toBe('1 h 0 min');
    expect(fmtDuration(3600 + 59.7 * 60)).toBe('2 h 0 min');
    expect(fmtDuration(7170)).toBe('2 h 0 min');
  });

  it('never prints 60 in a lower unit', () => {
    for (let s = 0; s < 3 * 3600; s += 0.25) expect(fmtDuration(s)).not.toMatch(/\b60 (s|min)/);
  });

  it('is "—" for a negative or non-finite value', () => {
    expect(fmtDuration(-1)).toBe('—');
    expect(fmtDuration(Number.NaN)).toBe('—');
    expect(fmtDuration(Number.POSITIVE_INFINITY)).toBe('—');
  });
});

describe('fmtUtc', () => {
  it('the minute in UTC whatever the local time zone', () => {
    expect(fmtUtc(Date.UTC(2026, 11, 5, 18, 50, 54))).toBe('2026-12-05 18:50 UTC');
    expect(fmtUtc(0)).toBe('1970-01-01 00:00 UTC');
  });
});
