// evaluate.ts evalSize: the episodes one evaluation rolls out, which the app's progress line
// divides by. Infeasible cells and the in-space rotation shrink it; a training harness that is
// also the base harness is one column, not two.
import { describe, expect, it } from 'vitest';
import { evalSize, type EvalSets } from '../../src/experiment/evaluate';
import { cellKey } from '../../src/experiment/plan';

const BASE = 'S0-T0-O0-C0-W0';
const sets: EvalSets = {
  testTasks: ['t1', 't2', 't3'],
  inSpace: ['S1-T1-O0-C0-W0', 'S2-T2-O2-C2-W2'],
  blackbox: ['bb-assistant'],
  training: [BASE, 'S0-T1-O0-C0-W0'],
};

describe('evalSize', () => {
  it('counts every harness column once × test tasks × samples', () => {
    // base, 2 in-space, 1 black-box, 1 training harness beyond base: 5 columns.
    expect(evalSize(sets, 2)).toEqual({ episodes: 5 * 3 * 2, harnesses: 5, tasks: 3 });
  });

  it('leaves out infeasible cells and follows the in-space rotation', () => {
    const excluded = new Set([cellKey('t1', 'bb-assistant'), cellKey('t2', BASE)]);
    const cellTasks = new Map([['S2-T2-O2-C2-W2', ['t3']]]);
    expect(evalSize({ ...sets, excluded, cellTasks }, 1)).toEqual({ episodes: 5 * 3 - 2 - 2, harnesses: 5, tasks: 3 });
  });
});
