/**
 * Training curves as a standalone SVG (no browser needed): two panels, rollout reward
 * (pass rate) and policy loss per RL step, one polyline per run. Pure string building.
 */
export interface CurveRun {
  method: string;
  seed: number;
  steps: ReadonlyArray<{ step: number; reward: number; policyLoss: number }>;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function panel(runs: readonly CurveRun[], key: 'reward' | 'policyLoss', title: string, x0: number, w: number, h: number): string {
  const pts = runs.flatMap((r) => r.steps.map((s) => ({ x: s.step, y: Number.isFinite(s[key]) ? s[key] : 0 })));
  const xmax = Math.max(1, ...pts.map((p) => p.x));
  let ymin = Math.min(0, ...pts.map((p) => p.y));
  let ymax = Math.max(key === 'reward' ? 1 : 1e-6, ...pts.map((p) => p.y));
  if (ymax - ymin < 1e-9) (ymax += 1), (ymin -= 1);
  const px = (x: number) => x0 + 40 + ((w - 60) * x) / xmax;
  const py = (y: number) => 30 + (h - 60) * (1 - (y - ymin) / (ymax - ymin));
  const lines = runs.map((r, i) => {
    const d = r.steps.map((s) => `${px(s.step).toFixed(1)},${py(Number.isFinite(s[key]) ? s[key] : 0).toFixed(1)}`).join(' ');
    return `<polyline fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="2" points="${d}"/>`;
  });
  return [
    `<text x="${x0 + w / 2}" y="18" text-anchor="middle" font-size="13">${esc(title)}</text>`,
    `<line x1="${x0 + 40}" y1="${h - 30}" x2="${x0 + w - 20}" y2="${h - 30}" stroke="#888"/>`,
    `<line x1="${x0 + 40}" y1="30" x2="${x0 + 40}" y2="${h - 30}" stroke="#888"/>`,
    `<text x="${x0 + 36}" y="34" text-anchor="end" font-size="10">${ymax.toPrecision(3)}</text>`,
    `<text x="${x0 + 36}" y="${h - 30}" text-anchor="end" font-size="10">${ymin.toPrecision(3)}</text>`,
    `<text x="${x0 + w - 20}" y="${h - 14}" text-anchor="end" font-size="10">step ${xmax}</text>`,
    ...lines,
  ].join('\n');
}

/** @returns an SVG document (800×320 plus a legend line per run). */
export function curvesSvg(runs: readonly CurveRun[]): string {
  const W = 800;
  const H = 300;
  const legend = runs.map((r, i) => `<text x="50" y="${H + 16 + 16 * i}" font-size="12" fill="${COLORS[i % COLORS.length]}">${esc(`${r.method} (seed ${r.seed})`)}</text>`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H + 20 + 16 * runs.length}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    panel(runs, 'reward', 'rollout reward (pass rate) per RL step', 0, W / 2, H),
    panel(runs, 'policyLoss', 'policy loss per RL step', W / 2, W / 2, H),
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}
