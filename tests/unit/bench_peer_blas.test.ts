import { describe, expect, it } from 'vitest';
import { peerBlasWarning, peerEnv } from '../../src/bench/pytorch_peer';

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

describe('peerEnv: the peer runs OpenBLAS single-threaded under torch’s threads (no oversubscription of the cores)', () => {
  it('sets OPENBLAS_NUM_THREADS=1 and keeps the rest of the environment', () => {
    const env = peerEnv({ PATH: '/usr/bin', OPENBLAS_NUM_THREADS: '4', HLAB_PYTHON: '/x/python3' });
    expect(env.OPENBLAS_NUM_THREADS).toBe('1');
    expect(env.PATH).toBe('/usr/bin');
    expect(env.HLAB_PYTHON).toBe('/x/python3');
  });
});
