/**
 * The events of the command line's page (entries.ts has the entry points): what travels back
 * to the CLI through the page's one exposed function. Imported by Node (src/cli/browser.ts) and
 * by the page alike, so it holds no page-only code.
 */
import type { RunEvent } from '../experiment/run_events';

/** Name of the page's one exposed event function (the CLI exposes it before the page loads). */
export const PAGE_EVENT_BINDING = 'hlabPageEvent';

/** What the page sends the CLI: the runner's events, and each saved checkpoint's export file (awaited: the CLI writes it first). */
export type PageEvent = RunEvent | { type: 'checkpointFile'; step: number; file: Uint8Array };

/** The page side of a call: send events, and whether the CLI asked to stop (Ctrl-C). */
export interface PageIo {
  send(ev: PageEvent): Promise<void>;
  stopRequested(): boolean;
}
