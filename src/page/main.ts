/**
 * The command line's page (src/page/index.html, served by Vite; src/cli/browser.ts opens it):
 * installs `window.hlabPage` (entries.ts PageApi) over the typed entry table, sends events and
 * asks questions through the two functions the CLI exposed (protocol.ts).
 */
import { PAGE_ENTRIES, type PageApi } from './entries';
import { PAGE_EVENT_BINDING, PAGE_QUERY_BINDING, type PageEvent, type PageIo, type PageQuery } from './protocol';

declare global {
  interface Window {
    hlabPage?: PageApi;
    /** Exposed by the CLI (browser.ts); absent when the page is opened by hand. */
    [PAGE_EVENT_BINDING]?: (ev: PageEvent) => Promise<void>;
    [PAGE_QUERY_BINDING]?: (q: PageQuery) => Promise<unknown>;
  }
}

let stopRequested = false;

const io: PageIo = {
  async send(ev) {
    await window[PAGE_EVENT_BINDING]?.(ev);
  },
  async ask(name, arg) {
    const ask = window[PAGE_QUERY_BINDING];
    if (!ask) throw new Error(`page question '${name}': no CLI to answer it (${PAGE_QUERY_BINDING} is not exposed)`);
    // The CLI answers with PageAnswers[name] (browser.ts), so the answer has this question's type.
    return (await ask({ name, arg } as PageQuery)) as never;
  },
  stopRequested: () => stopRequested,
};

window.hlabPage = {
  call(name, arg) {
    stopRequested = false;
    return (PAGE_ENTRIES[name] as (a: typeof arg, io: PageIo) => Promise<never>)(arg, io);
  },
  stop() {
    stopRequested = true;
  },
};
