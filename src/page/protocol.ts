/**
 * The messages of the command line's page (entries.ts has the entry points): the events it
 * sends the CLI, and the questions it asks the CLI, each through one exposed function.
 * Imported by Node (src/cli/browser.ts) and by the page alike, so it holds no page-only code.
 */
import type { RunEvent } from '../experiment/run_events';
import type { PretrainEvent } from '../pretrain/page';
import type { PeerInfo, PytorchPeerModel } from '../bench/pytorch_peer';

/** Name of the page's event function (the CLI exposes it before the page loads). */
export const PAGE_EVENT_BINDING = 'hlabPageEvent';
/** Name of the page's question function: its promise resolves with the CLI's answer. */
export const PAGE_QUERY_BINDING = 'hlabPageQuery';

/**
 * What the page sends the CLI: the runner's events (`hlab run`), each saved checkpoint's export
 * file (awaited: the CLI writes it first), pretraining progress (`hlab pretrain`) and bench
 * progress (`hlab bench`).
 */
export type PageEvent =
  | RunEvent
  | { type: 'checkpointFile'; step: number; file: Uint8Array }
  | PretrainEvent
  /** A progress line of a bench section (src/bench: cpu_engine, rl_step, train_bench); the CLI prints it to stderr after "[bench] ". */
  | { type: 'benchNote'; message: string };

/**
 * What the page may ask the CLI, name → argument and answer: the PyTorch CPU peer of `hlab bench`
 * (bench/pytorch_peer.ts runs in Node; the page's cpu_engine.ts interleaves its steps with ours).
 */
interface PageQueries {
  /** Build the peer's model, its AdamW and its batch; answers torch's version and its thread count. */
  pytorchModel: { arg: PytorchPeerModel; answer: PeerInfo };
  /** Run one peer training step; answers its wall time in ms. */
  pytorchStep: { arg: null; answer: number };
}
type PageQueryName = keyof PageQueries;
/** A question as it travels through PAGE_QUERY_BINDING. */
export type PageQuery = { [K in PageQueryName]: { name: K; arg: PageQueries[K]['arg'] } }[PageQueryName];
/** The CLI's answers, one function per question it can answer (BrowserOptions.answers). */
export type PageAnswers = { [K in PageQueryName]: (arg: PageQueries[K]['arg']) => Promise<PageQueries[K]['answer']> };

/** The page side of a call: send events, ask the CLI, and whether the CLI asked to stop (Ctrl-C). */
export interface PageIo {
  send(ev: PageEvent): Promise<void>;
  /** @throws Error when the running command does not answer `name` (its message names it) */
  ask<K extends PageQueryName>(name: K, arg: PageQueries[K]['arg']): Promise<PageQueries[K]['answer']>;
  stopRequested(): boolean;
}
