/**
 * Hash routing: the URL fragment names the view and its parameters, so a link reproduces what
 * the sender saw (same design inputs, same task, same harnesses, same turn).
 *
 *   #/design?levels=3,3,3,3,3&method=oa&k=18&seed=0&K=4&assign=locality
 *   #/inspect?suite=workspace&task=workspace/organize/t3/28842&a=S0-T0-O0-C0-W0&b=S1-T1-O1-C1-W1&ta=1&tb=1
 *   #/train?preset=quick&edits={"rl":{"steps":3}}&seed=1
 *   #/results?run=<saved run name>
 *   #/compare?runs=["<saved run name>",…]
 *
 * Parameters are kept as raw strings here; each view validates its own (an invalid value is
 * shown with its error next to the field, never silently replaced). Pure, DOM-free.
 */

/** The views, in header order. */
const VIEWS = ['design', 'inspect', 'train', 'results', 'compare', 'trajectories'] as const;
export type ViewName = (typeof VIEWS)[number];

interface Route {
  view: ViewName;
  /** Raw query parameters of the fragment, in insertion order. */
  params: Record<string, string>;
}

/** The route when the fragment is empty or names no known view: the lesson, the app's door. */
export const DEFAULT_ROUTE: Route = { view: 'train', params: {} };

/**
 * Whether a location hash is a route ('', '#', '#/…'). Any other fragment ('#view-root', the
 * skip link's target) is an anchor inside the page and must not change the view.
 */
export function isRouteHash(hash: string): boolean {
  return hash === '' || hash === '#' || hash.startsWith('#/');
}

/**
 * Parse a location hash ('#/inspect?a=…'); unknown views fall back to `DEFAULT_ROUTE`'s view
 * (the parameters are kept, so nothing the user typed is lost).
 */
export function parseRoute(hash: string): Route {
  const h = hash.replace(/^#\/?/, '');
  const q = h.indexOf('?');
  const path = (q < 0 ? h : h.slice(0, q)).replace(/\/+$/, '');
  const query = q < 0 ? '' : h.slice(q + 1);
  const params: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(query)) params[k] = v;
  const view = (VIEWS as readonly string[]).includes(path) ? (path as ViewName) : DEFAULT_ROUTE.view;
  return { view, params };
}

/**
 * Format a route as a hash. Commas and slashes stay readable (ids like 'S0-T1-O2-C0-W1' and
 * task ids 'workspace/organize/t3/28842' need no escaping in a fragment).
 */
export function formatRoute(route: Route): string {
  const qs = new URLSearchParams(route.params).toString().replace(/%2C/gi, ',').replace(/%2F/gi, '/');
  return `#/${route.view}${qs ? `?${qs}` : ''}`;
}
