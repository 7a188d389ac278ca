import { describe, expect, it } from 'vitest';
import { Sandbox, normalizePath, stateFromFiles } from '../../src/sandbox/sandbox';
import type { ToolCall, ToolName } from '../../src/sandbox/types';

const c = (tool: ToolName | string, args: Record<string, unknown> = {}): ToolCall => ({ tool, args }) as unknown as ToolCall;

function seeded(): Sandbox {
  return Sandbox.fromState(stateFromFiles({ '/a/x.txt': 'one\ntwo\n', '/a/b/y.md': 'Hello World\n', '/z.csv': 'k,v\n' }, ['/empty']));
}

describe('normalizePath', () => {
  it('normalizes relative, dotted and doubled paths', () => {
    expect(normalizePath('')).toBe('/');
    expect(normalizePath('.')).toBe('/');
    expect(normalizePath('a//b/./c/')).toBe('/a/b/c');
    expect(normalizePath('/a/b/../c')).toBe('/a/c');
    expect(normalizePath('  /a/b  ')).toBe('/a/b');
    expect(normalizePath('/a/..')).toBe('/');
  });
  it('rejects climbing above the root and bad characters with their codes', () => {
    const code = (p: string) => {
      try {
        normalizePath(p);
        return 'ok';
      } catch (e) {
        return (e as Error & { code: string }).code;
      }
    };
    expect(code('..')).toBe('outside_root');
    expect(code('/a/../../etc/passwd')).toBe('outside_root');
    expect(code('a/b/../../..')).toBe('outside_root');
    expect(code('a\\b')).toBe('invalid_path');
    expect(code('a\u0000b')).toBe('invalid_path');
    expect(code('/a/ b')).toBe('invalid_path');
    expect(code('x'.repeat(300))).toBe('invalid_path');
  });
});

// File names must read as they are stored. Lone surrogates (no UTF-8 form) and
// bidirectional / C1 controls are rejected everywhere a path enters the sandbox; right-to-left
// letters and well-formed astral characters stay valid.
describe('unreadable file names', () => {
  const bad = ['\ud800', '\udfff', 'x\udc00\ud800y', '\u202e', '\u202a', '\u2066', '\u2069', '\u200e', '\u200f', '\u061c', '\u0085'];
  for (const ch of bad) {
    const name = `/notes-${ch}txt.md`;
    const cp = `U+${ch.replace(/^x/, '').charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    it(`${cp} is rejected by normalizePath, the tools and stateFromFiles`, () => {
      expect(() => normalizePath(name)).toThrow(new RegExp(`contains ${cp.replace('+', '\\+')}`));
      const sb = seeded();
      const before = sb.state();
      for (const call of [
        c('write', { path: name, content: 'x' }),
        c('read', { path: name }),
        c('move', { from: '/z.csv', to: name }),
        c('mkdir', { path: name }),
      ]) {
        expect(sb.exec(call).error?.code, `${call.tool} ${JSON.stringify(name)}`).toBe('invalid_path');
      }
      expect(sb.state()).toEqual(before);
      expect(() => stateFromFiles({ [name]: 'x' })).toThrow(/names must read as they are stored/);
    });
  }
  it('right-to-left letters and astral characters are ordinary names', () => {
    for (const p of ['/שלום.txt', '/تقرير.md', '/😀/ünï.txt']) expect(normalizePath(p)).toBe(p);
  });
});

describe('Sandbox tools', () => {
  it('list: sorted absolute children, dirs with a trailing slash; errors on files and missing dirs', () => {
    const sb = seeded();
    expect(sb.exec(c('list', {})).output).toBe('/a/\n/empty/\n/z.csv');
    expect(sb.exec(c('list', { path: 'a' })).output).toBe('/a/b/\n/a/x.txt');
    expect(sb.exec(c('list', { path: '/empty' })).output).toBe('(empty directory)');
    expect(sb.exec(c('list', { path: '/z.csv' })).error?.code).toBe('not_a_directory');
    expect(sb.exec(c('list', { path: '/nope' })).error?.code).toBe('not_found');
  });

  it('read: contents, is_a_directory, not_found, not_a_directory through a file', () => {
    const sb = seeded();
    expect(sb.exec(c('read', { path: '/a/b/../x.txt' }))).toEqual({ ok: true, output: 'one\ntwo\n' });
    expect(sb.exec(c('read', { path: '/a' })).error?.code).toBe('is_a_directory');
    expect(sb.exec(c('read', { path: '/a/q.txt' })).error?.code).toBe('not_found');
    expect(sb.exec(c('read', { path: '/z.csv/q' })).error?.code).toBe('not_a_directory');
    expect(sb.exec(c('read', { path: '../../etc/passwd' })).error?.code).toBe('outside_root');
  });

  it('write creates parents, overwrites files, refuses dirs and paths through files', () => {
    const sb = seeded();
    expect(sb.exec(c('write', { path: '/out/deep/r.txt', content: '42' })).ok).toBe(true);
    expect(sb.state().dirs).toContain('/out/deep');
    expect(sb.exec(c('write', { path: '/out/deep/r.txt', content: '43' })).ok).toBe(true);
    expect(sb.fileAt('/out/deep/r.txt')).toBe('43');
    expect(sb.exec(c('write', { path: '/a', content: 'x' })).error?.code).toBe('is_a_directory');
    const before = JSON.stringify(sb.state());
    const r = sb.exec(c('write', { path: '/z.csv/new/f.txt', content: 'x' }));
    expect(r.error?.code).toBe('not_a_directory');
    expect(JSON.stringify(sb.state())).toBe(before); // a failed call changes nothing
  });

  it('append creates or extends; too_large past the file limit', () => {
    const sb = Sandbox.empty({ maxFileChars: 10 });
    sb.exec(c('append', { path: '/l.txt', content: 'abc' }));
    sb.exec(c('append', { path: '/l.txt', content: 'def' }));
    expect(sb.fileAt('/l.txt')).toBe('abcdef');
    expect(sb.exec(c('append', { path: '/l.txt', content: 'ghijk' })).error?.code).toBe('too_large');
    expect(sb.fileAt('/l.txt')).toBe('abcdef');
  });

  it('move: rename, into an existing dir, never overwrites, directories move whole', () => {
    const sb = seeded();
    expect(sb.exec(c('move', { from: '/z.csv', to: '/empty' })).output).toBe('moved /z.csv to /empty/z.csv');
    expect(sb.fileAt('/empty/z.csv')).toBe('k,v\n');
    expect(sb.exec(c('move', { from: '/a/x.txt', to: '/new/name.txt' })).ok).toBe(true);
    expect(sb.fileAt('/new/name.txt')).toBe('one\ntwo\n');
    sb.exec(c('write', { path: '/t.txt', content: 't' }));
    expect(sb.exec(c('move', { from: '/t.txt', to: '/new/name.txt' })).error?.code).toBe('exists');
    expect(sb.exec(c('move', { from: '/a', to: '/a/b/c' })).error?.code).toBe('invalid_path');
    expect(sb.exec(c('move', { from: '/a', to: '/moved' })).ok).toBe(true);
    expect(sb.fileAt('/moved/b/y.md')).toBe('Hello World\n');
    expect(sb.state().dirs).not.toContain('/a/b');
    expect(sb.exec(c('move', { from: '/nope', to: '/x' })).error?.code).toBe('not_found');
  });

  it('delete: files, whole trees, never the root', () => {
    const sb = seeded();
    expect(sb.exec(c('delete', { path: '/a' })).output).toBe('deleted /a/ (2 files)');
    expect(Object.keys(sb.state().files)).toEqual(['/z.csv']);
    expect(sb.exec(c('delete', { path: '/' })).error?.code).toBe('invalid_path');
    expect(sb.exec(c('delete', { path: '/a' })).error?.code).toBe('not_found');
  });

  it('search: case-insensitive names and lines, scoped by path', () => {
    const sb = seeded();
    expect(sb.exec(c('search', { query: 'WORLD' })).output).toBe('/a/b/y.md:1: Hello World');
    expect(sb.exec(c('search', { query: 'x.t' })).output).toBe('/a/x.txt');
    expect(sb.exec(c('search', { query: 'o', path: '/a/b' })).output).toBe('/a/b/y.md:1: Hello World');
    expect(sb.exec(c('search', { query: 'zzz' })).output).toBe('no matches for "zzz"');
    expect(sb.exec(c('search', { query: '  ' })).error?.code).toBe('bad_args');
  });

  it('mkdir is idempotent on dirs and refuses files', () => {
    const sb = seeded();
    expect(sb.exec(c('mkdir', { path: '/p/q' })).output).toBe('created /p/q/');
    expect(sb.exec(c('mkdir', { path: '/p/q' })).ok).toBe(true);
    expect(sb.exec(c('mkdir', { path: '/z.csv' })).error?.code).toBe('exists');
    expect(sb.exec(c('mkdir', { path: '/z.csv/q' })).error?.code).toBe('not_a_directory');
  });

  it('finish returns the answer; bad calls are errors, never exceptions', () => {
    const sb = seeded();
    expect(sb.exec(c('finish', { answer: '42' }))).toEqual({ ok: true, output: '42' });
    expect(sb.exec(c('finish', {}))).toEqual({ ok: true, output: '' });
    expect(sb.exec(c('rm', { path: '/a' })).error?.code).toBe('unknown_tool');
    expect(sb.exec(c('read', {})).error?.message).toContain('missing argument path');
    expect(sb.exec(c('read', { path: 3 })).error?.code).toBe('bad_args');
    expect(sb.exec(c('read', { path: '/z.csv', extra: 'x' })).error?.message).toContain('unknown argument');
    expect(sb.exec(null as unknown as ToolCall).error?.code).toBe('bad_args');
    expect(sb.exec({ tool: 'read', args: 'x' } as unknown as ToolCall).error?.code).toBe('bad_args');
  });

  it('file and directory count limits', () => {
    const sb = Sandbox.empty({ maxFiles: 2, maxDirs: 3 });
    expect(sb.exec(c('write', { path: '/1', content: '' })).ok).toBe(true);
    expect(sb.exec(c('write', { path: '/2', content: '' })).ok).toBe(true);
    expect(sb.exec(c('write', { path: '/3', content: '' })).error?.code).toBe('limit');
    expect(sb.exec(c('write', { path: '/2', content: 'overwrite is fine' })).ok).toBe(true);
    expect(sb.exec(c('mkdir', { path: '/d/e' })).ok).toBe(true); // '/', '/d', '/d/e'
    expect(sb.exec(c('mkdir', { path: '/f' })).error?.code).toBe('limit');
  });

  it('output truncation: capped, with an exact note of the dropped characters', () => {
    const sb = Sandbox.empty({ maxOutputChars: 100 });
    const content = 'abcdefghij'.repeat(30);
    sb.exec(c('write', { path: '/big', content }));
    const r = sb.exec(c('read', { path: '/big' }));
    expect(r.output.length).toBeLessThanOrEqual(100);
    const d = r.truncated!.droppedChars;
    expect(r.output).toBe(content.slice(0, content.length - d) + `\n[truncated: ${d} more chars not shown]`);
    // a surrogate pair is never split
    sb.exec(c('write', { path: '/emoji', content: '😀'.repeat(100) }));
    const emoji = sb.exec(c('read', { path: '/emoji' }));
    expect(emoji.output.length).toBeLessThanOrEqual(100);
    expect(emoji.output.split('\n')[0]).toBe('😀'.repeat((200 - emoji.truncated!.droppedChars) / 2));
  });

  it('fromState validates and names the bad field', () => {
    expect(() => Sandbox.fromState({ version: 2 } as never)).toThrow(/state.version/);
    expect(() => Sandbox.fromState({ version: 1, files: { '/a/b': 'x' }, dirs: ['/'] })).toThrow(/parent directory \/a/);
    expect(() => Sandbox.fromState({ version: 1, files: { a: 'x' }, dirs: ['/'] })).toThrow(/not normalized/);
    expect(() => Sandbox.fromState({ version: 1, files: { '/a': 'x' }, dirs: ['/', '/a'] })).toThrow(/both a file and a directory/);
    expect(() => Sandbox.fromState({ version: 1, files: {}, dirs: ['/../x'] })).toThrow(/climbs above/);
    expect(() => Sandbox.fromState({ version: 1, files: { '/a': 'xx' }, dirs: ['/'] }, { maxFileChars: 1 })).toThrow(/maxFileChars/);
    expect(() => Sandbox.empty({ maxOutputChars: 10 })).toThrow(/maxOutputChars/);
  });
});
