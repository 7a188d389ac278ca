/**
 * A sweep curve as a figure (SVG): one panel per set (in-space, base harness), pass@1 after RL
 * against the swept value (N or K) on a log axis, a point per value with its 95 % interval over
 * seeds, the before-RL level dashed; a point is filled when its difference from value 1 is decided
 * (the RESULTS rule) and hollow when it is not. Pure string building: scripts/claims.ts writes it
 * to docs/results/harness-count/scaling.svg and docs/results/diversity/k-sweep.svg.
 */
import type { SweepCurve } from './sweep_curve';

const PANELS = [
  { set: 'inSpace', title: 'held-out configurations (in-space)' },
  { set: 'base', title: 'the base harness' },
] as const;

/**
 * The figure.
 * @param curve sweep_curve.ts sweepCurve
 * @returns a standalone SVG document (UTF-8 text)
 */
export function sweepSvg(curve: SweepCurve): string {
  const pw = 360;
  const ph = 240;
  const left = 56;
  const top = 70;
  const gap = 70;
  const width = left + PANELS.length * (pw + gap);
  const height = top + ph + 60;
  const x = curve.axis.symbol;
  const ns = curve.points.map((p) => p.value);
  const [lx0, lx1] = [Math.log(Math.min(...ns)), Math.log(Math.max(...ns))];
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="${left}" y="18" font-size="14" font-weight="bold">pass@1 after RL against ${curve.axis.words} (equal budget)</text>`,
    `<text x="${left}" y="36" fill="#555">mean over seeds, bar: 95 % interval over seeds · filled: differs from ${x} = 1 beyond its interval · dashed: before RL</text>`,
  ];
  PANELS.forEach(({ set, title }, i) => {
    const x0 = left + i * (pw + gap);
    const levels = curve.points.flatMap((p) => [p.after[set].hi, p.after[set].mean]).filter(Number.isFinite);
    const ymax = Math.min(1, Math.ceil((Math.max(curve.before[set], ...levels) + 0.05) * 10) / 10);
    const X = (n: number) => x0 + 20 + ((Math.log(n) - lx0) / (lx1 - lx0 || 1)) * (pw - 40);
    const Y = (v: number) => top + ph - (v / ymax) * ph;
    out.push(
      `<text x="${x0 + pw / 2}" y="${top - 8}" text-anchor="middle" font-weight="bold">${title}</text>`,
      `<line x1="${x0}" y1="${top + ph}" x2="${x0 + pw}" y2="${top + ph}" stroke="#888"/>`,
      `<line x1="${x0}" y1="${top}" x2="${x0}" y2="${top + ph}" stroke="#888"/>`,
    );
    const step = ymax <= 0.3 ? 0.05 : 0.1;
    for (let k = 0; k * step <= ymax + 1e-9; k++) {
      const v = k * step;
      out.push(`<text x="${x0 - 6}" y="${Y(v) + 4}" text-anchor="end" font-size="10">${(100 * v).toFixed(0)} %</text>`);
    }
    for (const n of ns) out.push(`<text x="${X(n)}" y="${top + ph + 16}" text-anchor="middle" font-size="11">${n}</text>`);
    out.push(`<text x="${x0 + pw / 2}" y="${top + ph + 34}" text-anchor="middle" fill="#555">${curve.axis.label}</text>`);
    const yb = Y(curve.before[set]);
    out.push(
      `<line x1="${x0}" y1="${yb}" x2="${x0 + pw}" y2="${yb}" stroke="#777" stroke-dasharray="5 4"><title>before RL: ${(100 * curve.before[set]).toFixed(1)} %</title></line>`,
    );
    const pts = curve.points.map((p) => `${X(p.value).toFixed(1)},${Y(p.after[set].mean).toFixed(1)}`).join(' ');
    out.push(`<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="${pts}"/>`);
    for (const p of curve.points) {
      const l = p.after[set];
      const px = X(p.value);
      if (Number.isFinite(l.lo))
        out.push(
          `<line x1="${px}" y1="${Y(Math.max(0, l.lo))}" x2="${px}" y2="${Y(Math.min(ymax, l.hi))}" stroke="#1f77b4" stroke-width="1.5"/>`,
        );
      const v = p.vsOne[set];
      const decided = v !== null && (v.direction === 'ahead' || v.direction === 'behind');
      const tip = `${x} = ${p.value}: ${(100 * l.mean).toFixed(1)} %${v ? `; against ${x} = 1: ${v.sentence}` : ''}`
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;');
      out.push(
        `<circle cx="${px}" cy="${Y(l.mean)}" r="5" fill="${decided ? '#1f77b4' : 'white'}" stroke="#1f77b4" stroke-width="2"><title>${tip}</title></circle>`,
      );
    }
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
