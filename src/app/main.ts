/**
 * The web app's entry (index.html). It imports nothing before it runs, so that the view the
 * address names starts loading at once, beside the shell (shell.ts: navigation, routing, the
 * WebGPU banner, offline preparation) instead of after it: in the dev server, where every module
 * is a request and the browser learns a module's imports only once it has it, that is one round
 * of requests fewer before the first paint. The opened view is only guessed here (a `#/<view>`
 * fragment, else the door: Train); shell.ts routes (route.ts), and a wrong guess costs nothing
 * (every view is fetched after the first paint anyway).
 */
import type { ViewName } from './route';
import type { ViewConstructor } from './shell';

/** Each view's module, by name (header order). */
const LOADERS: Record<ViewName, () => Promise<ViewConstructor>> = {
  design: () => import('./views/design').then((m) => m.DesignView),
  inspect: () => import('./views/inspect').then((m) => m.InspectView),
  train: () => import('./views/train').then((m) => m.TrainView),
  results: () => import('./views/results').then((m) => m.ResultsView),
  compare: () => import('./views/compare').then((m) => m.CompareView),
  trajectories: () => import('./views/trajectories').then((m) => m.TrajectoriesView),
};
const loading = new Map<ViewName, Promise<ViewConstructor>>();

/** A view's constructor, its module fetched once (a failed fetch is tried again next time). */
function loadView(view: ViewName): Promise<ViewConstructor> {
  let p = loading.get(view);
  if (!p) {
    p = LOADERS[view]();
    p.catch(() => loading.delete(view));
    loading.set(view, p);
  }
  return p;
}

const named = /^#\/([a-z]+)/.exec(location.hash)?.[1] ?? (location.hash.length <= 1 ? 'train' : '');
if (Object.hasOwn(LOADERS, named)) void loadView(named as ViewName).catch(() => undefined);
void import('./shell').then((shell) => shell.startApp(loadView, Object.keys(LOADERS) as ViewName[]));
