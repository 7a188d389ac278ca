/**
 * The command line's page entry points (docs/ARCHITECTURE.md "CLI ↔ page"): the typed table of
 * what the CLI may run in its headless page (protocol.ts: the events it sends back).
 *
 *   CLI (src/cli/browser.ts)                         page (src/page/main.ts)
 *   session.call('run', request)  ── evaluate ──▶   PAGE_ENTRIES.run(request, io)
 *   onEvent(PageEvent)            ◀── binding ───   io.send(ev) = window[PAGE_EVENT_BINDING](ev)
 *   answers[name](arg) → answer   ◀── binding ──▶   io.ask(name, arg) = window[PAGE_QUERY_BINDING]({ name, arg })
 *   session.stop()                ── evaluate ──▶   io.stopRequested() becomes true
 *
 * Two exposed functions (Playwright `exposeFunction`): PAGE_EVENT_BINDING carries every event,
 * PAGE_QUERY_BINDING every question (protocol.ts PageQueries); arguments and results travel
 * through Playwright's serializer (NaN, typed arrays and nested objects survive). Entry modules
 * are imported lazily: the page loads only what a command runs.
 */
import type { PageEvent, PageIo } from './protocol';
import type { ExperimentOutput, RunnerOptions } from '../experiment/runner';
import type { ExperimentPlan } from '../experiment/compile';
import type { EvalPageRequest } from '../experiment/evaluate_page';
import type { PretrainPageOptions } from '../pretrain/page';
import type { PretrainPageResult } from '../pretrain/drivers';

/** `hlab run`'s request: the compiled plan and the runner's JSON-safe options; `mirror` sends every checkpoint back as a 'checkpointFile' event. */
export interface PageRunRequest {
  plan: ExperimentPlan;
  options: Omit<RunnerOptions, 'onProgress' | 'shouldStop' | 'mirrorCheckpoint' | 'tokenizer'>;
  mirror: boolean;
}

/** What the page reports about itself (doctor, the CLI's browser test). */
interface PageCapabilities {
  webgpu: boolean;
  crossOriginIsolated: boolean;
  hardwareConcurrency: number;
}

/** `hlab bench`'s CPU-engine request: `pytorch` when the CLI runs the PyTorch peer (the page then asks it for the peer's steps). */
interface PageCpuEngineBenchRequest {
  quick: boolean;
  pytorch: boolean;
}

/** Send `ev` without waiting (progress: the page's work never waits for the CLI); a failed send is logged, not fatal. */
function post(io: PageIo, ev: PageEvent): void {
  io.send(ev).catch((e: unknown) => console.error(`page event ${ev.type} not delivered:`, e));
}

/** A bench section's progress lines as 'benchNote' events, after `section` (e.g. 'cpu engine: '). */
const benchNotes = (io: PageIo, section: string) => (line: string) => post(io, { type: 'benchNote', message: section + line });

/** Benchmarks under src/bench/*.bench.ts, each exporting `bench({ quick })`; keyed '/src/bench/x.bench.ts'. */
const BENCH_MODULES = import.meta.glob<{ bench: (o: { quick: boolean }) => Promise<unknown> }>('../bench/*.bench.ts');

/** Every entry point of the page: name → (argument, io) → result. */
export const PAGE_ENTRIES = {
  capabilities: async (_: null, _io: PageIo): Promise<PageCapabilities> => ({
    webgpu: 'gpu' in navigator,
    crossOriginIsolated: globalThis.crossOriginIsolated === true,
    hardwareConcurrency: navigator.hardwareConcurrency,
  }),
  /** `hlab run`: runExperiment with its events, stop request and checkpoint mirror wired to the CLI. */
  run: async (req: PageRunRequest, io: PageIo): Promise<ExperimentOutput> => {
    const { runExperiment } = await import('../experiment/runner');
    return runExperiment(req.plan, {
      ...req.options,
      onProgress: (ev) => post(io, ev),
      shouldStop: () => io.stopRequested(),
      ...(req.mirror ? { mirrorCheckpoint: (file: Uint8Array, step: number) => io.send({ type: 'checkpointFile', step, file }) } : {}),
    });
  },
  /** `hlab evaluate`: the JSON report text (evaluate_page.ts). */
  evaluate: async (req: EvalPageRequest, _io: PageIo): Promise<string> =>
    (await import('../experiment/evaluate_page')).evaluateCheckpointInPage(req),
  /** `hlab pretrain` on WebGPU (or the page's CPU model), its progress as PretrainEvents. */
  pretrain: async (o: PretrainPageOptions, io: PageIo): Promise<PretrainPageResult> =>
    (await import('../pretrain/page')).pretrainInPage(o, (ev) => post(io, ev)),
  /** `hlab bench`: the CPU engine section; the PyTorch peer's steps are questions to the CLI. */
  benchCpuEngine: async (o: PageCpuEngineBenchRequest, io: PageIo) =>
    (await import('../bench/cpu_engine')).benchCpuEngine(
      { quick: o.quick, pytorch: o.pytorch ? { model: (m) => io.ask('pytorchModel', m), step: () => io.ask('pytorchStep', null) } : null },
      benchNotes(io, 'cpu engine: '),
    ),
  benchRlStep: async (o: { quick: boolean }, io: PageIo) => (await import('../bench/rl_step')).benchRlStep(o, benchNotes(io, 'rl step: ')),
  benchTraining: async (o: { quick: boolean }, io: PageIo) => (await import('../bench/train_bench')).benchTraining(o, benchNotes(io, '')),
  benchRollouts: async (o: Parameters<typeof import('../bench/rollout_bench').benchRollouts>[0], _io: PageIo) =>
    (await import('../bench/rollout_bench')).benchRollouts(o),
  /** One src/bench/*.bench.ts module's `bench`. @throws Error naming an unknown path */
  benchModule: async (o: { path: string; quick: boolean }, _io: PageIo): Promise<unknown> => {
    const load = BENCH_MODULES[o.path.replace(/^\/src\//, '../')];
    if (!load) throw new Error(`no bench module ${o.path} (have ${Object.keys(BENCH_MODULES).join(', ')})`);
    return (await load()).bench({ quick: o.quick });
  },
};

type PageEntries = typeof PAGE_ENTRIES;
export type PageEntryName = keyof PageEntries;
export type PageEntryArg<K extends PageEntryName> = Parameters<PageEntries[K]>[0];
export type PageEntryResult<K extends PageEntryName> = Awaited<ReturnType<PageEntries[K]>>;

/** The page's handle the CLI calls through `page.evaluate` (main.ts installs it as `window.hlabPage`). */
export interface PageApi {
  call<K extends PageEntryName>(name: K, arg: PageEntryArg<K>): Promise<PageEntryResult<K>>;
  /** Ask the running entry to stop (the runner checkpoints after the current RL step). */
  stop(): void;
}
