import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { peerBlasWarning, PytorchPeer } from '../../src/bench/pytorch_peer';

describe('peerBlasWarning: a PyTorch peer on a slow BLAS is flagged beside the ratio', () => {
  it('says nothing for an optimized BLAS', () => {
    for (const kind of ['openblas', 'mkl', 'blis'] as const)
      expect(peerBlasWarning({ path: `/usr/lib/${kind}/libblas.so.3`, kind })).toBeNull();
  });
  it('names the netlib reference BLAS, its path and the Debian package that replaces it', () => {
    const w = peerBlasWarning({ path: '/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0', kind: 'reference' });
    expect(w).toContain('netlib reference BLAS (/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0)');
    expect(w).toContain('libopenblas0-pthread');
    expect(w).not.toContain('\n');
  });
  it('flags a BLAS it could not identify, or none found', () => {
    expect(peerBlasWarning({ path: null, kind: 'unknown' })).toContain('unidentified BLAS (none found)');
    expect(peerBlasWarning({ path: '/opt/x/libfoo.so', kind: 'unknown' })).toContain('(/opt/x/libfoo.so)');
  });
});

/**
 * A stand-in interpreter: it "imports torch", then answers the model command as pytorch_peer.py
 * does, reporting OPENBLAS_NUM_THREADS and a marker variable as its environment holds them.
 */
const FAKE_PYTHON = `#!/bin/sh
[ "$1" = -c ] && exit 0
read -r cmd
printf '{"torch":"%s","threads":2,"blas":{"path":null,"kind":"openblas","threads":%s}}\\n' "$HLAB_PEER_MARK" "$OPENBLAS_NUM_THREADS"
cat >/dev/null
`;

describe('PytorchPeer.start: the peer runs OpenBLAS single-threaded under torch’s threads (no oversubscription of the cores)', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('starts the interpreter with OPENBLAS_NUM_THREADS=1 and the rest of the environment kept', async () => {
    const py = join(mkdtempSync(join(tmpdir(), 'hl-peer-')), 'python3');
    writeFileSync(py, FAKE_PYTHON);
    chmodSync(py, 0o755);
    vi.stubEnv('HLAB_PYTHON', py);
    vi.stubEnv('OPENBLAS_NUM_THREADS', '4');
    vi.stubEnv('HLAB_PEER_MARK', 'kept');
    const peer = PytorchPeer.start();
    if (!(peer instanceof PytorchPeer)) throw new Error(peer.absent);
    try {
      expect(peer.python).toBe(py);
      const info = await peer.model({ C: 8, L: 1, NH: 1, V: 16, B: 1, T: 4, threads: 2, seed: 1 });
      expect(info.blas.threads).toBe(1);
      expect(info.torch).toBe('kept');
    } finally {
      peer.close();
    }
  });
});
