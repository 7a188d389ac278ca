import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Sandbox, normalizePath, stateFromFiles } from '../../src/sandbox/sandbox';

/** The parent directory of a normalized path; null for the root. */
const parentPath = (p: string): string | null => (p === '/' ? null : p.slice(0, p.lastIndexOf('/')) || '/');
import { TOOL_NAMES } from '../../src/sandbox/types';
import type { SandboxLimits, SandboxState, ToolCall } from '../../src/sandbox/types';

const LIMITS: SandboxLimits = { maxFileChars: 40, maxFiles: 6, maxDirs: 8, maxOutputChars: 64, maxPathChars: 40 };
/** A populated start so that moves, deletes and reads often hit something. */
const start = () => Sandbox.fromState(stateFromFiles({ '/a/c.txt': 'line one', '/a/b/d.md': 'x', '/b/c.txt': 'abc' }), LIMITS);

// Paths built from a small alphabet so that collisions, traversal and bad characters are common.
const component = fc.oneof(
  { arbitrary: fc.constantFrom('a', 'b', 'c.txt', 'd.md'), weight: 12 },
  { arbitrary: fc.constantFrom('..', '.', ''), weight: 3 },
  { arbitrary: fc.constantFrom(' x', 'é', '\u0000', 'a\\b', '😀'), weight: 1 },
);
const pathArb = fc.tuple(fc.boolean(), fc.array(component, { maxLength: 4 })).map(([abs, cs]) => (abs ? '/' : '') + cs.join('/'));
const contentArb = fc.oneof(fc.string({ maxLength: 12 }), fc.string({ unit: 'binary', maxLength: 50 }), fc.constant('line1\nline2\nline3'));
const callArb: fc.Arbitrary<ToolCall> = fc.oneof(
  fc.record({ tool: fc.constant('write'), args: fc.record({ path: pathArb, content: contentArb }) }),
  fc.record({ tool: fc.constant('append'), args: fc.record({ path: pathArb, content: contentArb }) }),
  fc.record({ tool: fc.constant('mkdir'), args: fc.record({ path: pathArb }) }),
  fc.record({ tool: fc.constant('move'), args: fc.record({ from: pathArb, to: pathArb }) }),
  fc.record({ tool: fc.constant('delete'), args: fc.record({ path: pathArb }) }),
  fc.record({ tool: fc.constant('read'), args: fc.record({ path: pathArb }) }),
  fc.record({ tool: fc.constant('list'), args: fc.record({ path: pathArb }) }),
  fc.record({ tool: fc.constant('search'), args: fc.record({ query: fc.constantFrom('a', 'line', 'c.t', ''), path: pathArb }) }),
  fc.record({
    tool: fc.constantFrom(...TOOL_NAMES, 'rm', '__proto__'),
    args: fc.dictionary(
      fc.constantFrom('path', 'x', 'content'),
      fc.oneof(pathArb, fc.integer() as fc.Arbitrary<unknown> as fc.Arbitrary<string>),
    ),
  }),
) as fc.Arbitrary<ToolCall>;

/** Structural invariants of any reachable state. */
function checkInvariants(s: SandboxState, L: SandboxLimits): void {
  const files = Object.keys(s.files);
  expect(s.dirs).toContain('/');
  expect(files.length).toBeLessThanOrEqual(L.maxFiles);
  expect(s.dirs.length).toBeLessThanOrEqual(L.maxDirs);
  for (const p of [...files, ...s.dirs]) {
    expect(p.startsWith('/')).toBe(true);
    expect(normalizePath(p)).toBe(p); // normalized: no '..', '.', '//' components, inside the root
    const parent = parentPath(p);
    if (parent !== null) expect(s.dirs).toContain(parent);
  }
  for (const f of files) {
    expect(s.dirs).not.toContain(f);
    expect(s.files[f].length).toBeLessThanOrEqual(L.maxFileChars);
  }
  expect([...s.dirs].sort()).toEqual(s.dirs);
  expect([...files].sort()).toEqual(files);
}

/** Listing ⟷ read agreement: every dir lists exactly its children and each is reachable. */
function checkListing(sb: Sandbox, s: SandboxState): void {
  const probe = Sandbox.fromState(s, { ...LIMITS, maxOutputChars: 100_000 });
  const seen = new Set<string>();
  for (const d of s.dirs) {
    const r = probe.exec({ tool: 'list', args: { path: d } });
    expect(r.ok).toBe(true);
    const entries = r.output === '(empty directory)' ? [] : r.output.split('\n');
    for (const e of entries) {
      if (e.endsWith('/')) {
        expect(s.dirs).toContain(e.slice(0, -1));
        seen.add(e.slice(0, -1));
      } else {
        expect(probe.exec({ tool: 'read', args: { path: e } })).toEqual({ ok: true, output: s.files[e] });
        seen.add(e);
      }
    }
  }
  expect([...seen].sort()).toEqual([...Object.keys(s.files), ...s.dirs.filter((d) => d !== '/')].sort());
  expect(sb.state()).toEqual(s); // probing never mutates
}

describe('Sandbox properties', () => {
  it('random op sequences: never throw, never leave the root, limits hold, failed calls change nothing', () => {
    fc.assert(
      fc.property(fc.array(callArb, { maxLength: 30 }), (calls) => {
        const sb = start();
        for (const call of calls) {
          const before = JSON.stringify(sb.state());
          const r = sb.exec(call);
          expect(r.output.length).toBeLessThanOrEqual(LIMITS.maxOutputChars);
          if (!r.ok) {
            expect(r.output).toBe('');
            expect(r.error).toBeDefined();
            expect(r.error!.message.length).toBeLessThanOrEqual(LIMITS.maxOutputChars);
            expect(JSON.stringify(sb.state())).toBe(before);
          }
          if (r.truncated) expect(r.output).toContain(`[truncated: ${r.truncated.droppedChars} more chars not shown]`);
        }
        const s = sb.state();
        checkInvariants(s, LIMITS);
        checkListing(sb, s);
      }),
      { numRuns: 300 },
    );
  });

  it('state() round-trips through JSON and fromState; replay is deterministic', () => {
    fc.assert(
      fc.property(fc.array(callArb, { maxLength: 20 }), (calls) => {
        const a = start();
        const b = start();
        const ra = calls.map((c) => a.exec(c));
        const rb = calls.map((c) => b.exec(c));
        expect(rb).toEqual(ra);
        const s = a.state();
        const back = Sandbox.fromState(JSON.parse(JSON.stringify(s)), LIMITS);
        expect(back.state()).toEqual(s);
        expect(JSON.stringify(back.state())).toBe(JSON.stringify(s));
      }),
      { numRuns: 150 },
    );
  });

  it('normalizePath: absolute, idempotent, or an outside_root/invalid_path error', () => {
    fc.assert(
      fc.property(fc.oneof(pathArb, fc.string({ unit: 'binary', maxLength: 40 })), (p) => {
        let n: string;
        try {
          n = normalizePath(p);
        } catch (e) {
          expect((e as Error).name).toBe('ToolError');
          expect(['outside_root', 'invalid_path']).toContain((e as Error & { code: string }).code);
          return;
        }
        expect(n.startsWith('/')).toBe(true);
        expect(n.split('/').slice(1)).not.toContain('..');
        expect(n === '/' || !n.endsWith('/')).toBe(true);
        expect(n.includes('//')).toBe(false);
        expect(normalizePath(n)).toBe(n);
      }),
      { numRuns: 500 },
    );
  });

  it('more ".." than depth is always outside_root', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', 'c'), { maxLength: 4 }), fc.integer({ min: 1, max: 3 }), (cs, extra) => {
        const p = '/' + [...cs, ...Array(cs.length + extra).fill('..'), 'x'].join('/');
        const r = Sandbox.empty().exec({ tool: 'write', args: { path: p, content: 'escape' } });
        expect(r.error?.code).toBe('outside_root');
      }),
    );
  });

  it('truncation note is accurate: kept prefix + dropped count = the full output', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.integer({ min: 64, max: 200 }), (content, cap) => {
        const sb = Sandbox.empty({ maxOutputChars: cap, maxFileChars: 1000 });
        sb.exec({ tool: 'write', args: { path: '/f', content } });
        const r = sb.exec({ tool: 'read', args: { path: '/f' } });
        expect(r.ok).toBe(true);
        expect(r.output.length).toBeLessThanOrEqual(cap);
        if (content.length <= cap) {
          expect(r.output).toBe(content);
          expect(r.truncated).toBeUndefined();
        } else {
          const d = r.truncated!.droppedChars;
          const kept = content.length - d;
          expect(d).toBeGreaterThan(0);
          expect(r.output).toBe(content.slice(0, kept) + `\n[truncated: ${d} more chars not shown]`);
        }
      }),
      { numRuns: 300 },
    );
  });
});
