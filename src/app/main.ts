/**
 * The web app shell (docs/APP.md): header navigation with hash routing, the WebGPU banner, and
 * the views: Design, Inspect, Train, Results, Compare, Trajectories. `/` opens the lesson in
 * Train (route.ts DEFAULT_ROUTE), the app's door. A view is created the first time it is shown
 * and kept (hidden) afterwards, so a run in the Train view goes on while the user looks at other
 * views. A fragment that is not a route ('#view-root', the skip link's target) is an anchor
 * inside the page: it moves focus there and leaves the view and its URL as they were.
 *
 * Every view writes its inputs into the URL fragment (history.replaceState, so typing does not
 * flood the history), so a copied URL opens the same view with the same parameters. Everything
 * is bundled: after load the app makes no network request.
 *
 * Offline: what a training run would fetch is fetched at load instead — the tokenizer and every
 * model preset's base checkpoint go into Cache Storage (src/util/asset_fetch.ts; the runner and
 * loadTokenizer read through it), and the training worker is started right away so its scripts
 * are loaded while online (views/train_client.ts prewarmTrainWorker).
 */
import './styles.css';
import { DEFAULT_ROUTE, formatRoute, isRouteHash, parseRoute, type ViewName } from './route';
import { CompareView } from './views/compare';
import { DesignView } from './views/design';
import { InspectView } from './views/inspect';
import { ResultsView } from './views/results';
import { TrainView } from './views/train';
import { prewarmTrainWorker } from './views/train_client';
import { TrajectoriesView } from './views/trajectories';
import { probeWebGpu } from './webgpu_status';
import { PRESET_NAMES as MODEL_PRESETS } from '../model/config';
import { DEFAULT_TOKENIZER_URL } from '../model/tokenizer';
import { baseCheckpointUrl, precacheAssets } from '../util/asset_fetch';

interface ViewHandle {
  show(params: Record<string, string>): void;
}

const TITLES: Record<ViewName, string> = { design: 'Design', inspect: 'Inspect', train: 'Train', results: 'Results', compare: 'Compare', trajectories: 'Trajectories' };

const CONSTRUCTORS: Record<ViewName, new (el: HTMLElement, setParams: (p: Record<string, string>) => void) => ViewHandle> = {
  design: DesignView,
  inspect: InspectView,
  train: TrainView,
  results: ResultsView,
  compare: CompareView,
  trajectories: TrajectoriesView,
};

const root = document.getElementById('view-root')!;
const containers = new Map<ViewName, HTMLElement>();
const handles = new Map<ViewName, ViewHandle>();
/** The last parameters of each view, so the nav links return to what the user left. */
const lastParams: Record<ViewName, Record<string, string>> = { design: {}, inspect: {}, train: {}, results: {}, compare: {}, trajectories: {} };
let current: ViewName | null = null;

function updateNav(): void {
  for (const a of document.querySelectorAll<HTMLAnchorElement>('a[data-view]')) {
    const v = a.dataset.view as ViewName;
    a.href = formatRoute({ view: v, params: lastParams[v] });
    if (v === current) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

function handleFor(view: ViewName): { el: HTMLElement; handle: ViewHandle } {
  let el = containers.get(view);
  let handle = handles.get(view);
  if (!el || !handle) {
    el = document.createElement('div');
    el.className = 'view';
    el.id = `view-${view}`;
    el.dataset.view = view;
    root.append(el);
    const setParams = (p: Record<string, string>) => {
      lastParams[view] = p;
      history.replaceState(null, '', formatRoute({ view, params: p }));
      updateNav();
    };
    handle = new CONSTRUCTORS[view](el, setParams);
    containers.set(view, el);
    handles.set(view, handle);
  }
  return { el, handle };
}

/** The route the address bar names; a fragment that is no route keeps the view shown (or opens the default). */
function addressRoute(): ReturnType<typeof parseRoute> {
  const h = location.hash;
  if (h.length > 1 && isRouteHash(h)) return parseRoute(h);
  if (current && !isRouteHash(h)) return { view: current, params: lastParams[current] };
  return DEFAULT_ROUTE;
}

function showRoute(moveFocus: boolean): void {
  const route = addressRoute();
  const { el, handle } = handleFor(route.view);
  lastParams[route.view] = route.params;
  current = route.view;
  for (const [v, c] of containers) c.hidden = v !== route.view;
  document.title = `${TITLES[route.view]} · Harness Lab`;
  try {
    handle.show(route.params);
  } catch (e) {
    // A bug, not bad input (inputs are validated field by field): say so instead of a blank page.
    el.textContent = '';
    const p = document.createElement('p');
    p.className = 'error-box';
    p.textContent = `This view failed: ${(e as Error).message}`;
    el.append(p);
    console.error(e);
  }
  updateNav();
  if (moveFocus) el.querySelector<HTMLElement>('h1')?.focus({ preventScroll: false });
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

window.addEventListener('hashchange', () => {
  if (isRouteHash(location.hash)) return showRoute(true);
  // A fragment typed or followed without the click handler: go there, then restore the route.
  const id = decodeURIComponent(location.hash.slice(1));
  if (current) history.replaceState(null, '', formatRoute({ view: current, params: lastParams[current] }));
  else showRoute(false);
  focusAnchor(id);
});
const opened = addressRoute();
if (location.hash.length <= 1 || !isRouteHash(location.hash)) history.replaceState(null, '', formatRoute(opened));
showRoute(false);

// WebGPU is needed only to train; the banner says how to get it without blocking these views.
void probeWebGpu().then((s) => {
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

// Offline use (see the header): after the first paint, so the views come first.
// When both are done, <html data-offline-ready="true"> (tests wait for it: a worker's requests
// do not count for the page's network idle).
function prepareOffline(): void {
  const worker = prewarmTrainWorker();
  // The base checkpoint every spec can start from, for every model preset (or its absence).
  const checkpoints = MODEL_PRESETS.map((preset) => baseCheckpointUrl(preset));
  const assets = precacheAssets([DEFAULT_TOKENIZER_URL, ...checkpoints]).then((entries) => {
    const failed = entries.filter((e) => e.status === 'failed');
    if (failed.length) console.warn(`offline cache: could not fetch ${failed.map((e) => `${e.url} (${e.error})`).join(', ')}; a run started offline may fail`);
    return failed.length === 0;
  });
  void Promise.all([worker, assets]).then(([w, a]) => {
    document.documentElement.dataset.offlineReady = String(w && a);
  });
}
if (document.readyState === 'complete') prepareOffline();
else window.addEventListener('load', prepareOffline, { once: true });
