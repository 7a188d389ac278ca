/**
 * The command line's page (src/page/index.html, served by Vite; src/cli/browser.ts opens it):
 * installs `window.hlabPage` (entries.ts PageApi) over the typed entry table, and sends events
 * through the one function the CLI exposed (PAGE_EVENT_BINDING).
 */
import { PAGE_ENTRIES, type PageApi } from './entries';
import { PAGE_EVENT_BINDING, type PageEvent, type PageIo } from './protocol';

declare global {
  interface Window {
    hlabPage?: PageApi;
  }
}

let stopRequested = false;

const io: PageIo = {
  async send(ev: PageEvent) {
    const binding = (window as unknown as Record<string, ((ev: PageEvent) => Promise<void>) | undefined>)[PAGE_EVENT_BINDING];
    if (binding) await binding(ev);
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
