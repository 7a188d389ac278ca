/**
 * Compute pipelines and shader modules, created once and reused (docs/ARCHITECTURE.md "The WebGPU engine").
 * Creating a pipeline inside a training loop costs milliseconds; the cache makes it free.
 */
export class PipelineCache {
  private readonly modules = new Map<string, GPUShaderModule>();
  private readonly pipelines = new Map<string, GPUComputePipeline>();

  constructor(private readonly device: GPUDevice) {}

  /**
   * The compute pipeline for `code` with entry point `entryPoint` and override `constants`.
   * @param label  shown in WebGPU errors and captures, e.g. 'gelu_forward'
   * @param code   WGSL source
   */
  get(label: string, code: string, entryPoint = 'main', constants: Record<string, number> = {}): GPUComputePipeline {
    const ckeys = Object.keys(constants).sort();
    const key = `${label}\u0000${entryPoint}\u0000${ckeys.map((k) => `${k}=${constants[k]}`).join(',')}\u0000${code}`;
    let p = this.pipelines.get(key);
    if (p) return p;
    let module = this.modules.get(code);
    if (!module) {
      module = this.device.createShaderModule({ label, code });
      this.modules.set(code, module);
    }
    p = this.device.createComputePipeline({
      label,
      layout: 'auto',
      compute: { module, entryPoint, constants },
    });
    this.pipelines.set(key, p);
    return p;
  }

  /** Number of distinct pipelines created so far (for benchmarks and tests). */
  get size(): number {
    return this.pipelines.size;
  }
}
