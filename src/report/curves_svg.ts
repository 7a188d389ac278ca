/**
 * Training curves as a standalone SVG (no browser needed), one line per run, panels: rollout
 * reward, validation pass@1 (the train-seed validation split, validation.ts; a marker per
 * measured point) — one panel per validation set some run measured (training harnesses, base
 * harness, in-space), each with every run's line, so methods compare on the same set in one
 * panel — policy loss, entropy, and the share of groups dropped as all-equal — per RL step. A
 * value that was not measured (NaN, a missing field of an older record, no validation point) is
 * left out: the line breaks there, never drops to 0. Each line's tooltip names its run and panel.
 * Pure string building.
 */
import { VALIDATION_SETS, type ValidationSetName } from './results_schema';

type SetPass = { passAt1: number };
type CurvePoint = SetPass & { step: number; sets?: Partial<Record<Exclude<ValidationSetName, 'training'>, SetPass>> };
interface CurveRun {
  method: string;
  seed: number;
  steps: ReadonlyArray<{ step: number; reward: number; policyLoss: number; entropy?: number; droppedGroups?: number; groups?: number }>;
  validation?: ReadonlyArray<CurvePoint>;
}

/** A point's pass@1 on one validation set (validation.ts validationSetPoint); undefined: not measured. */
const setOf = (p: CurvePoint, set: ValidationSetName): SetPass | undefined => (set === 'training' ? p : p.sets?.[set]);

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];
const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

type Pt = { x: number; y: number };
/** A panel's series: per run, its points with NaN for "not measured". */
interface Series {
  title: string;
  /** Fixed [0, 1] axis for rates; otherwise the data range (with 0). */
  rate: boolean;
  /** Mark each point (sparse series such as validation). */
  markers: boolean;
  points: (r: CurveRun) => Pt[];
}

const num = (x: number | undefined): number => (typeof x === 'number' && Number.isFinite(x) ? x : NaN);

/** The validation panel of one set: its pass@1 at each point that measured it. */
function validationSeries(set: ValidationSetName, title: string): Series {
  return {
    title,
    rate: true,
    markers: true,
    points: (r) =>
      (r.validation ?? []).flatMap((p) => {
        const q = setOf(p, set);
        return q ? [{ x: p.step, y: num(q.passAt1) }] : [];
      }),
  };
}

/**
 * The panels for `runs`: the training set's validation panel always (titled as before sets
 * existed when it is the only one measured), another per other set some run measured.
 */
function seriesFor(runs: readonly CurveRun[]): Series[] {
  const extra = VALIDATION_SETS.filter((s) => s.set !== 'training' && runs.some((r) => (r.validation ?? []).some((p) => setOf(p, s.set))));
  const validation = extra.length
    ? [VALIDATION_SETS[0], ...extra].map((s) => validationSeries(s.set, `validation pass@1 · ${s.label}`))
    : [validationSeries('training', 'validation pass@1 (train-seed split)')];
  return [SERIES[0], ...validation, ...SERIES.slice(1)];
}

/** The panels other than validation's (seriesFor puts those after the first). */
const SERIES: Series[] = [
  { title: 'rollout reward per RL step', rate: true, markers: false, points: (r) => r.steps.map((s) => ({ x: s.step, y: num(s.reward) })) },
  {
    title: 'policy loss per RL step',
    rate: false,
    markers: false,
    points: (r) => r.steps.map((s) => ({ x: s.step, y: num(s.policyLoss) })),
  },
  { title: 'entropy per RL step', rate: false, markers: false, points: (r) => r.steps.map((s) => ({ x: s.step, y: num(s.entropy) })) },
  {
    title: 'share of groups dropped (all-equal rewards)',
    rate: true,
    markers: false,
    points: (r) => r.steps.map((s) => ({ x: s.step, y: s.groups ? num(s.droppedGroups) / s.groups : NaN })),
  },
];

/** Runs of consecutive finite points: a polyline each, so an unmeasured step is a gap. */
function segments(pts: readonly Pt[]): Pt[][] {
  const out: Pt[][] = [];
  let cur: Pt[] = [];
  for (const p of pts) {
    if (Number.isFinite(p.y)) cur.push(p);
    else if (cur.length) out.push(cur), (cur = []);
  }
  if (cur.length) out.push(cur);
  return out;
}

function panel(runs: readonly CurveRun[], s: Series, x0: number, y0: number, w: number, h: number): string {
  const per = runs.map((r) => s.points(r));
  const finite = per.flat().filter((p) => Number.isFinite(p.y));
  const xmax = Math.max(1, ...runs.flatMap((r) => r.steps.map((t) => t.step)), ...finite.map((p) => p.x));
  let ymin = s.rate ? 0 : Math.min(0, ...finite.map((p) => p.y));
  let ymax = s.rate ? 1 : Math.max(1e-6, ...finite.map((p) => p.y));
  if (ymax - ymin < 1e-9) (ymax += 1), (ymin -= 1);
  const px = (x: number) => x0 + 40 + ((w - 60) * x) / xmax;
  const py = (y: number) => y0 + 30 + (h - 60) * (1 - (y - ymin) / (ymax - ymin));
  const lines = per.flatMap((pts, i) => {
    const color = COLORS[i % COLORS.length];
    const tip = `<title>${esc(`${runs[i].method} (seed ${runs[i].seed}) · ${s.title}`)}</title>`;
    const polys = segments(pts).map(
      (seg) =>
        `<polyline fill="none" stroke="${color}" stroke-width="2" points="${seg.map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ')}">${tip}</polyline>`,
    );
    const marks = s.markers
      ? pts
          .filter((p) => Number.isFinite(p.y))
          .map((p) => `<circle cx="${px(p.x).toFixed(1)}" cy="${py(p.y).toFixed(1)}" r="3" fill="${color}"/>`)
      : [];
    return [...polys, ...marks];
  });
  const empty =
    finite.length === 0
      ? [`<text x="${x0 + w / 2}" y="${y0 + h / 2}" text-anchor="middle" font-size="12" fill="#888">not measured</text>`]
      : [];
  return [
    `<text x="${x0 + w / 2}" y="${y0 + 18}" text-anchor="middle" font-size="13">${esc(s.title)}</text>`,
    `<line x1="${x0 + 40}" y1="${y0 + h - 30}" x2="${x0 + w - 20}" y2="${y0 + h - 30}" stroke="#888"/>`,
    `<line x1="${x0 + 40}" y1="${y0 + 30}" x2="${x0 + 40}" y2="${y0 + h - 30}" stroke="#888"/>`,
    `<text x="${x0 + 36}" y="${y0 + 34}" text-anchor="end" font-size="10">${ymax.toPrecision(3)}</text>`,
    `<text x="${x0 + 36}" y="${y0 + h - 30}" text-anchor="end" font-size="10">${ymin.toPrecision(3)}</text>`,
    `<text x="${x0 + w - 20}" y="${y0 + h - 14}" text-anchor="end" font-size="10">step ${xmax}</text>`,
    ...lines,
    ...empty,
  ].join('\n');
}

/** @returns an SVG document: a grid of 320 × 260 panels, 3 a row (seriesFor), plus a legend line per run. */
export function curvesSvg(runs: readonly CurveRun[]): string {
  const PW = 320;
  const PH = 260;
  const COLS = 3;
  const series = seriesFor(runs);
  const H = PH * Math.ceil(series.length / COLS);
  const legend = runs.map(
    (r, i) =>
      `<text x="50" y="${H + 16 + 16 * i}" font-size="12" fill="${COLORS[i % COLORS.length]}">${esc(`${r.method} (seed ${r.seed})`)}</text>`,
  );
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${PW * COLS}" height="${H + 20 + 16 * runs.length}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    ...series.map((s, i) => panel(runs, s, (i % COLS) * PW, Math.floor(i / COLS) * PH, PW, PH)),
    ...legend,
    '</svg>',
    '',
  ].join('\n');
}
