/**
 * The web app shell (docs/APP.md): header navigation with hash routing, the WebGPU banner, and
 * the views: Design, Inspect, Train, Results, Compare, Trajectories. `/` opens the lesson in
 * Train (route.ts DEFAULT_ROUTE), the app's door. A view is created the first time it is shown
 * and kept (hidden) afterwards, so a run in the Train view goes on while the user looks at other
 * views. Each view is its own module (main.ts imports them), fetched when first shown: the first
 * paint waits for the opened view alone, and the other views are fetched right after it (so a
 * view opened later, offline included, needs no request). A fragment that is not a route
 * ('#view-root', the skip link's target) is an anchor inside the page: it moves focus there and
 * leaves the view and its URL as they were.
 *
 * Every view writes its inputs into the URL fragment (history.replaceState, so typing does not
 * flood the history), so a copied URL opens the same view with the same parameters. Everything
 * is bundled: once loaded (every view included) the app makes no network request.
 *
 * Offline: what a training run would fetch is fetched at load instead — the tokenizer and every
 * model preset's base checkpoint go into Cache Storage (src/util/asset_fetch.ts; the runner and
 * loadTokenizer read through it), and the training worker is started right away so its scripts
 * are loaded while online (views/train_client.ts prewarmTrainWorker).
 */
import './styles.css';
import { DEFAULT_ROUTE, formatRoute, isRouteHash, parseRoute, type ViewName } from './route';

interface ViewHandle {
  show(params: Record<string, string>): void;
}

/** What a view module exports: its class, constructed on the view's container. */
export type ViewConstructor = new (el: HTMLElement, setParams: (p: Record<string, string>) => void) => ViewHandle;

const TITLES: Record<ViewName, string> = {
  design: 'Design',
  inspect: 'Inspect',
  train: 'Train',
  results: 'Results',
  compare: 'Compare',
  trajectories: 'Trajectories',
};

/** Each view's constructor, its module fetched once (main.ts, the entry, holds the imports). */
let loadView: (view: ViewName) => Promise<ViewConstructor>;
/** Every view's name, in header order. */
let viewNames: readonly ViewName[] = [];

const root = document.getElementById('view-root')!;
const containers = new Map<ViewName, HTMLElement>();
const handles = new Map<ViewName, ViewHandle>();
/** The last parameters of each view, so the nav links return to what the user left. */
const lastParams: Record<ViewName, Record<string, string>> = {
  design: {},
  inspect: {},
  train: {},
  results: {},
  compare: {},
  trajectories: {},
};
let current: ViewName | null = null;
/** Counts the routes shown: a view whose module arrives after the reader asked for another route is not shown. */
let routeSeq = 0;

function updateNav(): void {
  for (const a of document.querySelectorAll<HTMLAnchorElement>('a[data-view]')) {
    const v = a.dataset.view as ViewName;
    a.href = formatRoute({ view: v, params: lastParams[v] });
    if (v === current) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

/** A view's container, created the first time the view is shown; it says "Loading …" until the view's module arrives. */
function containerFor(view: ViewName): HTMLElement {
  let el = containers.get(view);
  if (!el) {
    el = document.createElement('div');
    el.className = 'view';
    el.id = `view-${view}`;
    el.dataset.view = view;
    const wait = document.createElement('p');
    wait.className = 'note view-loading';
    wait.textContent = `Loading ${TITLES[view]}…`;
    el.append(wait);
    root.append(el);
    containers.set(view, el);
  }
  return el;
}

function createHandle(view: ViewName, el: HTMLElement, View: ViewConstructor): ViewHandle {
  const setParams = (p: Record<string, string>) => {
    lastParams[view] = p;
    history.replaceState(null, '', formatRoute({ view, params: p }));
    updateNav();
  };
  el.textContent = '';
  const handle = new View(el, setParams);
  handles.set(view, handle);
  return handle;
}

/** A bug or a failed fetch, not bad input (inputs are validated field by field): say so instead of a blank page. */
function viewFailed(el: HTMLElement, what: string, e: unknown): void {
  el.textContent = '';
  const p = document.createElement('p');
  p.className = 'error-box';
  p.textContent = `This view ${what}: ${(e as Error).message}`;
  el.append(p);
  console.error(e);
}

/** The route the address bar names; a fragment that is no route keeps the view shown (or opens the default). */
function addressRoute(): ReturnType<typeof parseRoute> {
  const h = location.hash;
  if (h.length > 1 && isRouteHash(h)) return parseRoute(h);
  if (current && !isRouteHash(h)) return { view: current, params: lastParams[current] };
  return DEFAULT_ROUTE;
}

/**
 * Show the route of the address bar: at once when its view was shown before, else once its module
 * has loaded (the container, the title and the nav change at once).
 * @returns resolves when the view is shown (or failed, or another route took its place)
 */
function showRoute(moveFocus: boolean): Promise<void> {
  const route = addressRoute();
  const seq = ++routeSeq;
  const el = containerFor(route.view);
  lastParams[route.view] = route.params;
  current = route.view;
  for (const [v, c] of containers) c.hidden = v !== route.view;
  document.title = `${TITLES[route.view]} · Harness Lab`;
  updateNav();
  const finish = (View?: ViewConstructor) => {
    if (seq !== routeSeq) return;
    try {
      (handles.get(route.view) ?? createHandle(route.view, el, View!)).show(route.params);
    } catch (e) {
      viewFailed(el, 'failed', e);
    }
    updateNav();
    if (moveFocus) el.querySelector<HTMLElement>('h1')?.focus({ preventScroll: false });
  };
  if (handles.has(route.view)) {
    finish();
    return Promise.resolve();
  }
  return loadView(route.view).then(finish, (e: unknown) => {
    if (seq === routeSeq) viewFailed(el, 'could not be loaded', e);
  });
}

/** Focus an element an in-page link points at (made focusable by script when it is not). */
function focusAnchor(id: string): boolean {
  const target = id ? document.getElementById(id) : null;
  if (!target) return false;
  if (!target.hasAttribute('tabindex') && target.tabIndex < 0) target.setAttribute('tabindex', '-1');
  target.focus();
  target.scrollIntoView({ block: 'start' });
  return true;
}

// In-page links (the skip link): focus their target without touching the URL, which keeps
// naming the view (and so stays shareable).
document.addEventListener('click', (e) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.target as Element | null)?.closest?.('a[href^="#"]');
  const href = a?.getAttribute('href') ?? '';
  if (!a || isRouteHash(href)) return;
  if (focusAnchor(decodeURIComponent(href.slice(1)))) e.preventDefault();
});

/** Every view's module, so that opening a view later needs no request (offline) and no wait. */
function prefetchViews(): Promise<boolean> {
  return Promise.all(viewNames.map((v) => loadView(v))).then(
    () => true,
    (e: unknown) => {
      console.warn(`offline: could not load every view (${(e as Error).message}); a view opened offline may fail`);
      return false;
    },
  );
}

/** The base checkpoint every spec can start from, for every model preset (or its absence), and the tokenizer, into Cache Storage. */
async function precacheRunAssets(): Promise<boolean> {
  const [{ PRESET_NAMES }, { DEFAULT_TOKENIZER_URL }, { baseCheckpointUrl, precacheAssets }] = await Promise.all([
    import('../model/config'),
    import('../model/tokenizer'),
    import('../util/asset_fetch'),
  ]);
  const entries = await precacheAssets([DEFAULT_TOKENIZER_URL, ...PRESET_NAMES.map((preset) => baseCheckpointUrl(preset))]);
  const failed = entries.filter((e) => e.status === 'failed');
  if (failed.length)
    console.warn(`offline cache: could not fetch ${failed.map((e) => `${e.url} (${e.error})`).join(', ')}; a run started offline may fail`);
  return failed.length === 0;
}

// Offline use (see the header): after the first view and the page's load, so the view comes first.
// When all is done, <html data-offline-ready="true"> (tests wait for it: a worker's requests
// do not count for the page's network idle).
function prepareOffline(): void {
  const worker = import('./views/train_client').then((m) => m.prewarmTrainWorker());
  void Promise.all([worker, precacheRunAssets(), prefetchViews()]).then(
    (done) => {
      document.documentElement.dataset.offlineReady = String(done.every(Boolean));
    },
    (e: unknown) => {
      console.warn(`offline: ${(e as Error).message}`);
      document.documentElement.dataset.offlineReady = 'false';
    },
  );
}

/** The WebGPU badge and banner: WebGPU is needed only to train; the banner says how to get it without blocking the views. */
function probeGpu(): void {
  void import('../engine/webgpu_status')
    .then((m) => m.probeWebGpu())
    .then((s) => {
      const status = document.getElementById('gpu-status')!;
      if (s.available) {
        status.textContent = `WebGPU: ${s.adapter}`;
        status.className = 'gpu-ok';
        return;
      }
      status.textContent = 'WebGPU: unavailable';
      status.className = 'gpu-missing';
      const banner = document.getElementById('gpu-banner')!;
      // Keep each command-line flag on one line (a browser would otherwise break '--enable-…' after
      // its hyphens), so the flags can be read and copied as they are.
      const msg = banner.querySelector('.gpu-message')!;
      for (const [i, word] of s.message.split(' ').entries()) {
        if (i) msg.append(' ');
        if (word.startsWith('--')) {
          const flag = document.createElement('code');
          flag.className = 'flag';
          flag.textContent = word.replace(/[).,]+$/, '');
          msg.append(flag, word.slice(flag.textContent.length));
        } else msg.append(word);
      }
      banner.hidden = false;
    });
}

/**
 * Start the app: route the address, show its view, then the WebGPU badge and what offline use
 * needs. Called once, by main.ts.
 * @param load each view's constructor by name (fetched once; main.ts may have started the opened view's fetch already)
 * @param views every view's name (fetched after the first view, for navigation and offline use)
 */
export function startApp(load: (view: ViewName) => Promise<ViewConstructor>, views: readonly ViewName[]): void {
  loadView = load;
  viewNames = views;
  window.addEventListener('hashchange', () => {
    if (isRouteHash(location.hash)) return void showRoute(true);
    // A fragment typed or followed without the click handler: go there, then restore the route.
    const id = decodeURIComponent(location.hash.slice(1));
    if (current) history.replaceState(null, '', formatRoute({ view: current, params: lastParams[current] }));
    else void showRoute(false);
    focusAnchor(id);
  });
  const opened = addressRoute();
  if (location.hash.length <= 1 || !isRouteHash(location.hash)) history.replaceState(null, '', formatRoute(opened));
  const firstView = showRoute(false);
  probeGpu();
  const loaded =
    document.readyState === 'complete'
      ? Promise.resolve()
      : new Promise((resolve) => window.addEventListener('load', resolve, { once: true }));
  void Promise.all([firstView, loaded]).then(prepareOffline);
}
