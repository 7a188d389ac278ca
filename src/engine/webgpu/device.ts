/**
 * The one GPUDevice of a Harness Lab page or worker: adapter limits, error capture, loss.
 *
 * docs/ARCHITECTURE.md "The WebGPU engine". We ask the adapter for the limits a model needs (the defaults are smaller
 * than what SwiftShader and real GPUs offer: 128 MiB bindings, 16 KiB workgroup storage) and
 * record every uncaptured validation error so tests can fail on them.
 */
import { PipelineCache } from './pipeline_cache';
import { markDeviceLost } from '../device_lost';

/** Limits we raise to the adapter's maximum when it offers more than the default. */
const RAISED_LIMITS = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxComputeWorkgroupStorageSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupSizeY',
  'maxComputeWorkgroupsPerDimension',
] as const;

export interface Gpu {
  adapter: GPUAdapter;
  device: GPUDevice;
  /** Adapter description, e.g. `{vendor: 'google', architecture: 'swiftshader'}`. */
  info: { vendor: string; architecture: string; device: string; description: string };
  /** Pipelines and shader modules keyed by label and WGSL source. */
  pipelines: PipelineCache;
  /** Uncaptured errors seen so far (validation, out-of-memory, internal), oldest first. */
  errors: string[];
  /** Set once the device is lost; training must stop and resume on a new device. */
  lost: GPUDeviceLostInfo | null;
}

interface CreateGpuOptions {
  /** Extra device features to request if the adapter has them (e.g. 'timestamp-query'). */
  optionalFeatures?: GPUFeatureName[];
  /** Called once when the device is lost (driver reset, tab backgrounded too long, destroy()). */
  onLost?: (info: GPUDeviceLostInfo) => void;
}

/** Thrown when WebGPU is unavailable; the message says which browser and flags enable it. */
export class WebGpuUnavailableError extends Error {
  constructor(detail: string) {
    super(
      `WebGPU is not available (${detail}). Use Chrome/Chromium 113+; where WebGPU is off, start it with ` +
        '--enable-unsafe-webgpu (Linux without a GPU also: --enable-features=Vulkan --use-vulkan=swiftshader ' +
        '--use-webgpu-adapter=swiftshader).',
    );
    this.name = 'WebGpuUnavailableError';
  }
}

/**
 * Request an adapter and a device with raised limits.
 * @throws WebGpuUnavailableError when `navigator.gpu` or an adapter is missing.
 */
export async function createGpu(opts: CreateGpuOptions = {}): Promise<Gpu> {
  const gpu = (globalThis.navigator as Navigator | undefined)?.gpu;
  if (!gpu) throw new WebGpuUnavailableError('navigator.gpu is undefined');
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new WebGpuUnavailableError('requestAdapter() returned null');

  const requiredLimits: Record<string, number> = {};
  for (const name of RAISED_LIMITS) {
    const v = (adapter.limits as unknown as Record<string, number>)[name];
    if (typeof v === 'number') requiredLimits[name] = v;
  }
  const requiredFeatures = (opts.optionalFeatures ?? []).filter((f) => adapter.features.has(f));
  const device = await adapter.requestDevice({
    label: 'hlab-device',
    requiredLimits,
    requiredFeatures,
  });

  const ai = adapter.info;
  const result: Gpu = {
    adapter,
    device,
    info: {
      vendor: ai?.vendor ?? '',
      architecture: ai?.architecture ?? '',
      device: ai?.device ?? '',
      description: ai?.description ?? '',
    },
    pipelines: new PipelineCache(device),
    errors: [],
    lost: null,
  };
  device.addEventListener('uncapturederror', (ev) => {
    const e = (ev as GPUUncapturedErrorEvent).error;
    result.errors.push(`${e.constructor.name}: ${e.message}`);
    recordGlobalGpuError(`${e.constructor.name}: ${e.message}`);
  });
  void device.lost.then((info) => {
    result.lost = info;
    markDeviceLost(device, info);
    if (info.reason !== 'destroyed') recordGlobalGpuError(`device lost: ${info.message}`);
    opts.onLost?.(info);
  });
  return result;
}

/** Every uncaptured WebGPU error and device loss of this realm (window or worker), in order. */
const realmGpuErrors: string[] = [];

function recordGlobalGpuError(msg: string): void {
  realmGpuErrors.push(msg);
}

/**
 * The uncaptured WebGPU errors this realm's devices reported so far (a copy): the train worker
 * reports them with a failed run, and the browser test fixture fails a test whose page recorded any.
 */
export function gpuErrorsOfRealm(): string[] {
  return realmGpuErrors.slice();
}
