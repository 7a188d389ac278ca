// `hlab pretrain --backend wasm` runs in plain Node (tsx, no Vite): its import chain must stay
// free of GPU modules (WGSL ?raw imports load only under Vite). Two tiny steps, then the
// checkpoint file and the sidecar exist and name the CPU engine.
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeBaseCheckpoint } from '../../src/model/checkpoint';
import { DEFAULT_MIX_SPEC } from '../../src/pretrain/mix';

describe('hlab pretrain --backend wasm (Node)', () => {
  it('trains two steps on the CPU engine and writes the checkpoint with its sidecar', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hlab-pretrain-'));
    const out = join(dir, 'base-tiny.ckpt');
    execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'pretrain',
        '--backend',
        'wasm',
        '--threads',
        '2',
        '--preset',
        'tiny',
        '--steps',
        '2',
        '--batch',
        '2',
        '--demos',
        '4',
        '--eval-tasks',
        '0',
        '--out',
        out,
        '--json',
      ],
      { stdio: 'pipe', timeout: 120_000 },
    );
    expect(existsSync(out)).toBe(true);
    const side = JSON.parse(readFileSync(out + '.json', 'utf8')) as { steps: number; adapter: string; rebuild: string };
    expect(side.steps).toBe(2);
    expect(side.rebuild).toBe(
      `npm run -s hlab -- pretrain --backend wasm --threads 2 --preset tiny --steps 2 --batch 2 --demos 4 --eval-tasks 0 --out ${out} --json`,
    );
    // The checkpoint records the default harness mix (src/pretrain/mix.ts): the base, 10 one-factor variants, 48 random.
    const ck = await decodeBaseCheckpoint(new Uint8Array(readFileSync(out)));
    expect(ck.header.metadata.pretrainMix).toBe(DEFAULT_MIX_SPEC);
    expect(ck.header.metadata.pretrainMixHarnesses).toHaveLength(59);
    expect(side.adapter).toMatch(/CPU engine \(WebAssembly SIMD, 2 threads\)/);
  });
});
