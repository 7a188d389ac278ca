import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  canonicalJson,
  checkpointFromParts,
  parseManifest,
  prepareCheckpoint,
  splitIntoChunks,
  verifyAndAssembleTensor,
  type CheckpointInput,
  type PreparedCheckpoint,
} from '../../src/storage/serialize';
import { concatBytes, decodeExportFile, encodeExportFile } from '../../src/storage/export_file';
import { CheckpointError } from '../../src/storage/errors';
import { Rng } from '../../src/util/rng';
import { nullsToNaN, sha256Hex, stringifyFinite } from '../../src/util/encoding';

/** A small checkpoint with awkward float bit patterns (NaN payload, -0, subnormal, ±Inf). */
function sample(seed: number, nParams = 37): CheckpointInput {
  const rng = new Rng(seed);
  const params = Float32Array.from({ length: nParams }, () => rng.normal());
  const special = new Uint32Array(params.buffer);
  if (nParams >= 5) {
    special[0] = 0x7fc01234; // quiet NaN with a payload
    special[1] = 0x80000000; // -0
    special[2] = 0x00000001; // smallest subnormal
    special[3] = 0x7f800000; // +Inf
    special[4] = 0xff800000; // -Inf
  }
  return {
    meta: {
      runId: `run-${seed}`,
      step: 12,
      createdAt: 1_700_000_000_000,
      config: { lr: 3e-4, model: { layers: 2, dModel: 64 }, harnesses: ['S0-T0-O0-C0-W0'] },
      rngStates: { sampler: rng.state(), schedule: [1, 2, 3, 4] },
      scheduleState: { cursor: 5 },
      metricHistory: [
        { step: 1, loss: 2.5 },
        { step: 2, loss: 2.25 },
      ],
    },
    tensors: {
      params,
      adamM: Float32Array.from({ length: nParams }, () => rng.normal() * 1e-3),
      adamV: Float32Array.from({ length: nParams }, () => rng.float() * 1e-6),
      counts: Uint32Array.from({ length: 3 }, () => rng.nextU32()),
    },
  };
}

function errorOf(f: () => unknown): CheckpointError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(CheckpointError);
    return e as CheckpointError;
  }
  throw new Error('expected a CheckpointError, none thrown');
}

async function asyncErrorOf(p: Promise<unknown>): Promise<CheckpointError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(CheckpointError);
    return e as CheckpointError;
  }
  throw new Error('expected a CheckpointError, none thrown');
}

function fileOf(p: PreparedCheckpoint, input: CheckpointInput): Uint8Array {
  const tensors = new Map(Object.entries(input.tensors).map(([k, t]) => [k, new Uint8Array(t.buffer, t.byteOffset, t.byteLength)]));
  return concatBytes(encodeExportFile(p.manifest, p.manifestJson, p.manifestDigest, tensors));
}

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 test vectors', async () => {
    expect(await sha256Hex(new TextEncoder().encode('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(await sha256Hex(new Uint8Array(0))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });
});

describe('stringifyFinite and nullsToNaN', () => {
  it('write non-finite numbers as null and read every null back as NaN, at any depth', () => {
    const data = { a: NaN, b: [1, Infinity, { c: -Infinity, d: 'x' }], e: { f: 0, g: [NaN] } };
    const json = stringifyFinite(data);
    expect(json).toBe('{"a":null,"b":[1,null,{"c":null,"d":"x"}],"e":{"f":0,"g":[null]}}');
    expect(nullsToNaN(JSON.parse(json))).toEqual({ a: NaN, b: [1, NaN, { c: NaN, d: 'x' }], e: { f: 0, g: [NaN] } });
    expect(nullsToNaN(null)).toBeNaN();
    expect(nullsToNaN('text')).toBe('text');
  });
});

describe('canonicalJson', () => {
  it('is independent of key insertion order and round-trips through JSON.parse', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const s = canonicalJson(v, 'v');
        // Rebuild every object with reversed key order: same canonical string.
        const reversed = (x: unknown): unknown =>
          Array.isArray(x)
            ? x.map(reversed)
            : x !== null && typeof x === 'object'
              ? Object.fromEntries(
                  Object.entries(x)
                    .reverse()
                    .map(([k, y]) => [k, reversed(y)]),
                )
              : x;
        expect(canonicalJson(reversed(v), 'v')).toBe(s);
        expect(canonicalJson(JSON.parse(s), 'v')).toBe(s);
      }),
      { numRuns: 200 },
    );
  });

  it('rejects non-JSON values, naming the path', () => {
    expect(errorOf(() => canonicalJson({ a: [1, { b: NaN }] }, 'meta.config')).message).toContain('meta.config.a[1].b');
    expect(errorOf(() => canonicalJson({ u: undefined }, 'x')).message).toContain('x.u: undefined');
    expect(errorOf(() => canonicalJson({ t: new Float32Array(2) }, 'x')).message).toContain('Float32Array');
    expect(errorOf(() => canonicalJson({ n: 1n }, 'x')).message).toContain('x.n');
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    expect(errorOf(() => canonicalJson(cyc, 'x')).message).toContain('cyclic');
  });
});

describe('splitIntoChunks', () => {
  it('splits into ceil(n / size) owned chunks that concatenate back to the input', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: 1, max: 40 }), (bytes, k) => {
        const size = 4 * k;
        const chunks = splitIntoChunks(bytes, size);
        expect(chunks.length).toBe(Math.ceil(bytes.length / size));
        chunks.forEach((c, i) => expect(c.byteLength).toBe(i < chunks.length - 1 ? size : bytes.length - size * (chunks.length - 1)));
        expect(Array.from(concatBytes(chunks.map((c) => new Uint8Array(c))))).toEqual(Array.from(bytes));
      }),
    );
  });
});

describe('prepareCheckpoint', () => {
  it('builds a sorted manifest with per-chunk and per-tensor digests', async () => {
    const input = sample(1, 37);
    const p = await prepareCheckpoint(input, 64);
    // The manifest layout's version, pinned: a format change must change this test deliberately.
    expect(p.manifest.formatVersion).toBe(1);
    expect(p.manifest.tensors.map((t) => t.name)).toEqual(['adamM', 'adamV', 'counts', 'params']);
    const params = p.manifest.tensors.find((t) => t.name === 'params')!;
    expect(params).toMatchObject({ dtype: 'f32', length: 37, byteLength: 148, chunkCount: 3 });
    expect(params.digest).toBe(await sha256Hex(new Uint8Array(input.tensors.params.buffer)));
    expect(p.chunks.filter((c) => c.tensor === 'params').map((c) => c.bytes.byteLength)).toEqual([64, 64, 20]);
    expect(p.totalBytes).toBe(3 * 148 + 12);
    expect(p.manifestDigest).toBe(await sha256Hex(new TextEncoder().encode(p.manifestJson)));
  });

  it('is deterministic: same content in another key order gives the same manifest digest', async () => {
    const a = sample(2);
    const b: CheckpointInput = {
      meta: { ...a.meta, config: { harnesses: ['S0-T0-O0-C0-W0'], model: { dModel: 64, layers: 2 }, lr: 3e-4 } },
      tensors: { counts: a.tensors.counts, adamV: a.tensors.adamV, params: a.tensors.params, adamM: a.tensors.adamM },
    };
    const [pa, pb] = await Promise.all([prepareCheckpoint(a, 64), prepareCheckpoint(b, 64)]);
    expect(pb.manifestDigest).toBe(pa.manifestDigest);
    const c = sample(2);
    c.tensors.adamV[7] = Math.fround(c.tensors.adamV[7] * 2 + 1e-7);
    expect((await prepareCheckpoint(c, 64)).manifestDigest).not.toBe(pa.manifestDigest);
  });

  it('rejects bad input with the field named', async () => {
    const cases: [(c: CheckpointInput) => void, string][] = [
      [(c) => (c.meta.step = -1), 'meta.step'],
      [(c) => (c.meta.step = 1.5), 'meta.step'],
      [(c) => (c.meta.runId = ''), 'meta.runId'],
      [(c) => (c.meta.createdAt = NaN), 'meta.createdAt'],
      [(c) => ((c.meta.config as Record<string, unknown>).lr = Infinity), 'meta.config.lr'],
      [(c) => ((c.tensors as Record<string, unknown>).bad = new Float64Array(2)), 'tensors.bad'],
    ];
    for (const [mutate, field] of cases) {
      const c = sample(3);
      mutate(c);
      const e = await asyncErrorOf(prepareCheckpoint(c, 64));
      expect(e.code).toBe('invalid-input');
      expect(e.message).toContain(field);
    }
    expect((await asyncErrorOf(prepareCheckpoint(sample(3), 6))).message).toContain('chunkBytes');
  });
});

describe('verification on load', () => {
  it('assembles bit-exact tensors; names the missing or corrupt chunk', async () => {
    const input = sample(4, 50);
    const p = await prepareCheckpoint(input, 32);
    const m = await parseManifest(p.manifestJson, p.manifestDigest, 'test');
    const buffers = new Map<string, ArrayBuffer>();
    for (const e of m.tensors) {
      const chunks = p.chunks.filter((c) => c.tensor === e.name).map((c) => c.bytes);
      buffers.set(e.name, await verifyAndAssembleTensor(m, e, chunks));
    }
    const ck = checkpointFromParts(m, buffers);
    for (const [k, t] of Object.entries(input.tensors)) {
      expect(ck.tensors[k].constructor).toBe(t.constructor);
      expect(Array.from(new Uint32Array(ck.tensors[k].buffer))).toEqual(Array.from(new Uint32Array(t.buffer)));
    }
    expect(ck.meta).toMatchObject({ ...input.meta, schemaVersion: 1 });

    const e = m.tensors.find((t) => t.name === 'adamM')!;
    const chunks = p.chunks.filter((c) => c.tensor === 'adamM').map((c) => c.bytes.slice(0));
    const missing = await asyncErrorOf(verifyAndAssembleTensor(m, e, [chunks[0], undefined, ...chunks.slice(2)]));
    expect(missing).toMatchObject({ code: 'partial', tensor: 'adamM', chunk: 1, step: 12, runId: 'run-4' });
    expect(missing.message).toContain("checkpoint run 'run-4' step 12 is partial: tensor 'adamM' chunk 1");
    new Uint8Array(chunks[3])[5] ^= 0x01;
    const bad = await asyncErrorOf(verifyAndAssembleTensor(m, e, chunks));
    expect(bad).toMatchObject({ code: 'corrupt', tensor: 'adamM', chunk: 3 });
    expect(bad.message).toContain('SHA-256 mismatch');
  });

  it('rejects a manifest whose digest does not match', async () => {
    const p = await prepareCheckpoint(sample(5), 64);
    const e = await asyncErrorOf(parseManifest(p.manifestJson.replace('"step":12', '"step":13'), p.manifestDigest, 'ckpt'));
    expect(e.code).toBe('corrupt');
    expect(e.message).toContain('ckpt: manifest SHA-256 mismatch');
  });
});

describe('export file', () => {
  it('round-trips bit-exactly, keeping the manifest byte for byte', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 90 }), fc.integer({ min: 1, max: 16 }), fc.integer(), async (n, k, seed) => {
        const input = sample(seed, n);
        const p = await prepareCheckpoint(input, 4 * k);
        const file = fileOf(p, input);
        expect(new TextDecoder().decode(file.subarray(0, 8))).toBe('HLABCKPT');
        const back = await decodeExportFile(file);
        expect(back.manifestJson).toBe(p.manifestJson);
        expect(back.manifestDigest).toBe(p.manifestDigest);
        expect(back.chunks.length).toBe(p.chunks.length);
        back.chunks.forEach((c, i) => {
          expect(c.tensor).toBe(p.chunks[i].tensor);
          expect(Array.from(new Uint8Array(c.bytes))).toEqual(Array.from(new Uint8Array(p.chunks[i].bytes)));
        });
      }),
      { numRuns: 25 },
    );
  });

  it('rejects a file with any single byte changed, or truncated', async () => {
    const input = sample(6, 20);
    const p = await prepareCheckpoint(input, 32);
    const file = fileOf(p, input);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: file.length - 1 }), fc.integer({ min: 1, max: 255 }), async (pos, x) => {
        const t = file.slice();
        t[pos] ^= x;
        const e = await asyncErrorOf(decodeExportFile(t));
        expect(e.code).toBe('invalid-file');
      }),
      { numRuns: 150 },
    );
    // The specific messages for a flipped tensor byte and a flipped manifest byte.
    const t = file.slice();
    t[t.length - 1] ^= 0xff; // last byte of the last tensor in manifest order ('params')
    const e = await asyncErrorOf(decodeExportFile(t));
    expect(e).toMatchObject({ code: 'invalid-file', tensor: 'params' });
    expect(e.message).toContain("tensor 'params'");
    const t2 = file.slice();
    t2[48 + 3] ^= 0x01; // the manifest starts after the 48-byte header (docs/STORAGE.md)
    expect((await asyncErrorOf(decodeExportFile(t2))).message).toContain('manifest SHA-256 mismatch');
    expect((await asyncErrorOf(decodeExportFile(file.subarray(0, file.length - 4)))).message).toContain('truncated');
    expect((await asyncErrorOf(decodeExportFile(file.subarray(0, 20)))).message).toContain('shorter than the 48-byte header');
    expect(
      (await asyncErrorOf(decodeExportFile(new TextEncoder().encode('not a checkpoint at all, just some text here....')))).message,
    ).toContain('magic');
  });
});
