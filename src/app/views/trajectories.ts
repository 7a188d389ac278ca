/**
 * The Trajectories view (docs/ARCHITECTURE.md "Rows and trajectories", "RL objective"): the rollouts an experiment kept
 * (src/experiment/trajectory_sample.ts), filtered by method, RL step, harness, task family and
 * outcome, replayed token by token. Each token is a span with its decoded text (specials such
 * as <|end|> shown literally), coloured by loss mask (context = grey, sampled action = orange)
 * or by advantage (diverging red–white–blue scale; GRPO: the trajectory's advantage on every
 * action token, PPO: each token's own). Reward, pass, behaviour tags, harness and task beside it.
 *
 * Keyboard: in the token panel ←/→ step a token, Home/End go to the turn's first/last token,
 * PageUp/PageDown change turn, Space plays/pauses; every control is a button or a select.
 * URL parameters: run | file | preset (source; a committed preset shows its sample trajectories), method, step, harness, family, outcome (pass | fail),
 * traj (index in the output's trajectories), turn (1-based), pos (0-based token of the turn),
 * color (mask | adv), speed (tokens per second while playing).
 */
import { html, nothing, render, type TemplateResult } from 'lit-html';
import type { Tokenizer } from '../../model/tokenizer';
import { appTokenizer } from '../app_tokenizer';
import type { ExperimentOutputJson, TrajectorySampleJson } from '../results_store';
import { SourceLoader, SourcePicker, sourceFromParams, sourceParams, type SourceRef } from './results_source';
import { committedOrigin } from '../committed_fetch';
import '../results.css';

export const TRAJ_DEFAULTS = {
  method: '',
  step: '',
  harness: '',
  family: '',
  outcome: '',
  traj: '',
  turn: '1',
  pos: '',
  color: 'mask',
  speed: '10',
} as const;
type Inputs = Record<keyof typeof TRAJ_DEFAULTS, string>;
const SPEEDS = ['2', '5', '10', '25', '100'];

// The vocabulary is fetched while the app loads (module evaluation), not when the view is first
// opened: after load the app makes no network request. The runner samples with the default
// vocabulary (DEFAULT_TOKENIZER_URL), so the same file decodes the stored ids.
let tokenizer: Tokenizer | null = null;
let tokenizerError = '';
const tokenizerReady: Promise<void> = appTokenizer.then(
  (t) => void (tokenizer = t),
  (e: Error) => void (tokenizerError = `tokenizer not loaded (${e.message}): tokens are shown as ids`),
);

/** One displayed token of a turn. */
export interface ReplayToken {
  id: number;
  /** Position in the turn's row: context tokens first, then the sampled action. */
  pos: number;
  /** Loss mask: false = context (not trained on), true = sampled action token. */
  action: boolean;
  /** log π_old (action tokens). */
  logprob: number | null;
  /** Advantage (action tokens). */
  advantage: number | null;
}

/**
 * The tokens of every turn of a trajectory, with per-token advantages (GRPO: the trajectory's
 * value on every action token; PPO: consumed in turn order).
 */
export function replayTokens(t: TrajectorySampleJson): ReplayToken[][] {
  let k = 0;
  return t.turns.map((u) => {
    const ctx: ReplayToken[] = u.contextIds.map((id, i) => ({ id, pos: i, action: false, logprob: null, advantage: null }));
    const act: ReplayToken[] = u.actionIds.map((id, j) => ({
      id,
      pos: u.contextIds.length + j,
      action: true,
      logprob: u.logprobs[j] ?? null,
      advantage: Array.isArray(t.advantage) ? (t.advantage[k++] ?? null) : t.advantage,
    }));
    return [...ctx, ...act];
  });
}

/**
 * Diverging colour of an advantage: white at 0, towards blue (#2166ac) for A > 0 and red
 * (#b2182b) for A < 0, saturating at |A| = scale.
 */
export function advantageColor(a: number | null, scale: number): string {
  if (a === null || !Number.isFinite(a) || !(scale > 0)) return 'rgb(255,255,255)';
  const t = Math.max(-1, Math.min(1, a / scale));
  const [r, g, b] = t >= 0 ? [0x21, 0x66, 0xac] : [0xb2, 0x18, 0x2b];
  const f = Math.abs(t);
  const mix = (c: number) => Math.round(255 + (c - 255) * f);
  return `rgb(${mix(r)},${mix(g)},${mix(b)})`;
}

/** Display text of one id: its decoded text with line breaks and tabs made visible. */
function tokenText(id: number): string {
  if (!tokenizer) return `#${id} `;
  if (id < 0 || id >= tokenizer.vocabSize) return `#${id}?`;
  return readableToken(tokenizer.tokenBytes(id), tokenizer.isSpecial(id) ? tokenizer.decode([id]) : null)
    .replace(/\t/g, '⇥\t')
    .replace(/\n/g, '↵\n');
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * A token's text for display: its UTF-8 text when its bytes are whole characters, otherwise the
 * bytes in hex (`⟨e2 80⟩`): a token can hold part of a multi-byte character, which decodes to
 * "�" on its own. Exported for tests.
 * @param special the special token's name (shown as is), or null
 */
export function readableToken(bytes: Uint8Array, special: string | null = null): string {
  if (special !== null) return special;
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return `⟨${[...bytes].map((b) => b.toString(16).padStart(2, '0')).join(' ')}⟩`;
  }
}

const CONTEXT_BG = '#e4e7eb';
const ACTION_BG = '#ffc98b';

interface Filtered {
  all: TrajectorySampleJson[];
  /** Indices into `all` that pass the filters. */
  shown: number[];
  options: { method: string[]; step: string[]; harness: string[]; family: string[] };
}

function filterTrajectories(all: TrajectorySampleJson[], f: Inputs): Filtered {
  const uniq = (xs: (string | number)[]) =>
    [...new Set(xs.map(String))].sort((a, b) => (Number.isFinite(+a) && Number.isFinite(+b) ? +a - +b : a < b ? -1 : a > b ? 1 : 0));
  const shown: number[] = [];
  all.forEach((t, i) => {
    if (f.method && t.method !== f.method) return;
    if (f.step && String(t.step) !== f.step) return;
    if (f.harness && t.harnessId !== f.harness) return;
    if (f.family && t.family !== f.family) return;
    if (f.outcome === 'pass' && !t.pass) return;
    if (f.outcome === 'fail' && t.pass) return;
    shown.push(i);
  });
  return {
    all,
    shown,
    options: {
      method: uniq(all.map((t) => t.method)),
      step: uniq(all.map((t) => t.step)),
      harness: uniq(all.map((t) => t.harnessId)),
      family: uniq(all.map((t) => t.family)),
    },
  };
}

function tagsList(t: TrajectorySampleJson): TemplateResult {
  const g = t.tags;
  if (!g) return html`<p class="note">No behaviour tags recorded.</p>`;
  const item = (label: string, v: unknown, bad = false) =>
    html`<li class=${bad ? 'tag bad' : 'tag'}><span>${label}</span> <strong>${String(v)}</strong></li>`;
  return html`<ul class="tags traj-tags" aria-label="Behaviour tags">
    ${item('turns', g.turns)}${item('tool calls', g.toolCalls)}${item('parse errors', g.parseErrors, g.parseErrors > 0)}
    ${item('workflow violations', g.workflowViolations, g.workflowViolations > 0)}${item('tool errors', g.toolErrors, g.toolErrors > 0)}
    ${item('recovered', g.recovered === null ? 'n/a' : g.recovered ? 'yes' : 'no')}${item('state-tracking errors', g.stateTrackingErrors, g.stateTrackingErrors > 0)}
    ${item('terminated', g.terminated ? 'yes' : 'no')}${g.truncated ? item('truncated', g.truncationReason ?? 'yes', true) : nothing}
  </ul>
  ${g.stateTrackingEvents.length ? html`<ul class="note">${g.stateTrackingEvents.map((e) => html`<li>${e}</li>`)}</ul>` : nothing}`;
}

export class TrajectoriesView {
  // A committed preset's sample trajectories are all this view needs of it.
  private readonly loaded = new SourceLoader(() => this.draw(), ['trajectories']);
  private inputs: Inputs = { ...TRAJ_DEFAULTS };
  private readonly picker: SourcePicker;
  private timer: ReturnType<typeof setInterval> | null = null;

  /** @param setParams called with the view's non-default inputs whenever the user changes one (→ URL). */
  constructor(
    private readonly el: HTMLElement,
    private readonly setParams: (p: Record<string, string>) => void,
  ) {
    this.picker = new SourcePicker(
      'traj',
      (ref) => this.pick(ref),
      () => this.draw(),
    );
    void tokenizerReady.then(() => this.draw());
  }

  /** Show the view for URL parameters (missing ones take their defaults). */
  show(params: Record<string, string>): void {
    this.stop();
    this.inputs = { ...TRAJ_DEFAULTS };
    for (const key of Object.keys(TRAJ_DEFAULTS) as (keyof Inputs)[]) if (params[key] !== undefined) this.inputs[key] = params[key];
    const ref = sourceFromParams(params);
    void this.picker.refresh();
    if (this.loaded.needsLoad(ref)) void this.loaded.load(ref);
    else this.draw();
  }

  private pick(ref: SourceRef | null): void {
    this.stop();
    this.loaded.source = ref;
    this.inputs = { ...TRAJ_DEFAULTS, color: this.inputs.color, speed: this.inputs.speed };
    this.publish();
    void this.loaded.load(ref);
  }

  private publish(): void {
    const p: Record<string, string> = sourceParams(this.loaded.source);
    for (const key of Object.keys(TRAJ_DEFAULTS) as (keyof Inputs)[])
      if (this.inputs[key] !== TRAJ_DEFAULTS[key]) p[key] = this.inputs[key];
    this.setParams(p);
  }

  private set(changes: Partial<Inputs>, publish = true): void {
    this.inputs = { ...this.inputs, ...changes };
    if (publish) this.publish();
    this.draw();
  }

  private setFilter(name: 'method' | 'step' | 'harness' | 'family' | 'outcome', value: string): void {
    this.stop();
    // A new filter picks the first matching trajectory afresh.
    this.set({ [name]: value, traj: '', turn: '1', pos: '' });
  }

  private draw(): void {
    render(this.template(), this.el);
  }

  // --- replay state -------------------------------------------------------------------------

  /** The selected trajectory (the URL's, when it passes the filters; else the first shown). */
  private selected(f: Filtered): number | null {
    const want = Number(this.inputs.traj);
    if (this.inputs.traj !== '' && Number.isInteger(want) && f.shown.includes(want)) return want;
    return f.shown.length ? f.shown[0] : null;
  }

  /** Clamp the cursor: turn in 1..turns, pos in the turn (default: the last context token, i.e. the whole context shown). */
  private cursor(toks: ReplayToken[][]): { turn: number; pos: number } {
    const turns = toks.length;
    const turn = Math.min(Math.max(1, Math.floor(Number(this.inputs.turn)) || 1), Math.max(1, turns));
    const row = toks[turn - 1] ?? [];
    const firstAction = row.findIndex((t) => t.action);
    const dflt = firstAction > 0 ? firstAction - 1 : 0;
    const raw = this.inputs.pos === '' ? dflt : Math.floor(Number(this.inputs.pos));
    const pos = Math.min(Math.max(0, Number.isFinite(raw) ? raw : dflt), Math.max(0, row.length - 1));
    return { turn, pos };
  }

  /** Move the cursor by `delta` tokens across turns. @returns false at either end. */
  private step(toks: ReplayToken[][], delta: number, publish = true): boolean {
    let { turn, pos } = this.cursor(toks);
    pos += delta;
    while (pos >= (toks[turn - 1]?.length ?? 0) && turn < toks.length) {
      pos -= toks[turn - 1].length;
      turn++;
    }
    while (pos < 0 && turn > 1) {
      turn--;
      pos += toks[turn - 1].length;
    }
    const last = toks[turn - 1]?.length ?? 0;
    if (pos < 0 || pos >= last) return false;
    this.set({ turn: String(turn), pos: String(pos) }, publish);
    return true;
  }

  private goTurn(toks: ReplayToken[][], turn: number): void {
    if (turn < 1 || turn > toks.length) return;
    this.set({ turn: String(turn), pos: '' });
  }

  private play(toks: ReplayToken[][]): void {
    if (this.timer) {
      this.stop(true);
      return;
    }
    const speed = Math.max(1, Number(this.inputs.speed) || 10);
    this.timer = setInterval(() => {
      // The URL is written when playback stops, not on every token.
      if (!this.step(toks, 1, false)) this.stop(true);
    }, 1000 / speed);
    this.draw();
  }

  private stop(publish = false): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = null;
    if (publish) {
      this.publish();
      this.draw();
    }
  }

  // --- templates ----------------------------------------------------------------------------

  private template(): TemplateResult {
    const out = this.loaded.output;
    return html`
      <section class="intro">
        <h1 tabindex="-1">Trajectories</h1>
        <p>Rollouts kept during RL training, replayed token by token. Grey tokens are the context the
          policy saw (loss mask 0); coloured tokens are what it sampled (loss mask 1), which is what
          the policy-gradient loss trains on, weighted by the advantage.</p>
      </section>
      ${this.picker.template(this.loaded.source, "Trajectories come from runs trained in this browser, results files that include them, or a sample of a preset's committed runs.")}
      ${this.loaded.error ? html`<p class="error-box" id="traj-load-error" role="alert">${this.loaded.error}</p>` : nothing}
      ${this.loaded.source && !out && !this.loaded.error ? html`<p class="note">Loading…</p>` : nothing}
      ${out ? this.body(out) : nothing}
    `;
  }

  private selectField(
    name: 'method' | 'step' | 'harness' | 'family' | 'outcome',
    label: string,
    options: [string, string][],
  ): TemplateResult {
    const id = `traj-${name}`;
    return html`<div class="field"><label for=${id}>${label}</label>
      <select id=${id} @change=${(e: Event) => this.setFilter(name, (e.target as HTMLSelectElement).value)}>
        <option value="" ?selected=${this.inputs[name] === ''}>all</option>
        ${options.map(([v, l]) => html`<option value=${v} ?selected=${this.inputs[name] === v}>${l}</option>`)}
        ${this.inputs[name] !== '' && !options.some(([v]) => v === this.inputs[name]) ? html`<option value=${this.inputs[name]} selected>${this.inputs[name]} (none)</option>` : nothing}
      </select></div>`;
  }

  private body(out: ExperimentOutputJson): TemplateResult {
    const all = out.trajectories ?? [];
    if (all.length === 0 && this.loaded.pending.includes('trajectories'))
      return html`<p class="card note" id="traj-loading">Loading the sample trajectories…</p>`;
    if (all.length === 0)
      return html`<p class="card note" id="traj-none">This output has no trajectories (runs record a few per RL step; older results files do not).</p>`;
    const origin = committedOrigin(out);
    const f = filterTrajectories(all, this.inputs);
    const sel = this.selected(f);
    const o = f.options;
    return html`
      <form class="controls card" aria-label="Trajectory filters" @submit=${(e: Event) => e.preventDefault()}>
        ${this.selectField(
          'method',
          'Method',
          o.method.map((m) => [m, m]),
        )}
        ${this.selectField(
          'step',
          'RL step',
          o.step.map((s) => [s, s]),
        )}
        ${this.selectField(
          'harness',
          'Harness',
          o.harness.map((h) => [h, h]),
        )}
        ${this.selectField(
          'family',
          'Task family',
          o.family.map((x) => [x, x]),
        )}
        ${this.selectField('outcome', 'Outcome', [
          ['pass', 'pass'],
          ['fail', 'fail'],
        ])}
        <p class="note" id="traj-count" aria-live="polite">${f.shown.length} of ${all.length} trajectories${
          origin?.meta
            ? html` <span id="traj-sample-note">— a sample of the ${origin.meta.trajectories.of} the committed runs of <code>${origin.preset}</code> kept: a pass and a fail at each run's first, middle and last RL step</span>`
            : nothing
        }</p>
      </form>
      <div class="traj-layout">
        <section class="card traj-list" aria-labelledby="traj-list-h">
          <h2 id="traj-list-h">Trajectories</h2>
          ${
            f.shown.length === 0
              ? html`<p class="note">None match these filters.</p>`
              : html`<div class="scroll-y scroll-x"><table id="traj-table">
                <thead><tr><th>step</th><th title="method · seed">run</th><th>task <span class="visually-hidden">(button: replay)</span></th><th>harness</th><th>reward</th></tr></thead>
                <tbody>
                  ${f.shown.map((i) => {
                    const t = all[i];
                    return html`<tr data-traj=${i} class=${i === sel ? 'current' : ''} aria-current=${i === sel ? 'true' : 'false'}>
                      <td class="num">${t.step}</td><td class="nowrap">${t.method} · s${t.seed}</td>
                      <td><button type="button" class="link" title=${t.taskId} aria-label=${`Replay ${t.taskId} under ${t.harnessId}, ${t.method} seed ${t.seed}, step ${t.step}`}
                        @click=${() => (this.stop(), this.set({ traj: String(i), turn: '1', pos: '' }))}>${t.family || t.taskId}</button></td>
                      <td><code class="hid">${t.harnessId}</code></td>
                      <td class=${t.pass ? 'yes' : 'no'}>${t.reward ?? '—'} ${t.pass ? '✓' : '✗'}</td>
                    </tr>`;
                  })}
                </tbody>
              </table></div>`
          }
        </section>
        ${sel === null ? nothing : this.replay(all[sel], sel)}
      </div>
    `;
  }

  private replay(t: TrajectorySampleJson, index: number): TemplateResult {
    const toks = replayTokens(t);
    const { turn, pos } = this.cursor(toks);
    const row = toks[turn - 1] ?? [];
    const u = t.turns[turn - 1];
    const cur = row[pos];
    const advs = toks
      .flat()
      .filter((x) => x.action && x.advantage !== null)
      .map((x) => Math.abs(x.advantage!));
    const scale = advs.length ? Math.max(...advs) : 0;
    const mode = this.inputs.color === 'adv' ? 'adv' : 'mask';
    const bg = (x: ReplayToken) => (!x.action ? CONTEXT_BG : mode === 'adv' ? advantageColor(x.advantage, scale) : ACTION_BG);
    const playing = this.timer !== null;
    const onKey = (e: KeyboardEvent) => {
      const k: Record<string, () => void> = {
        ArrowRight: () => this.step(toks, 1),
        ArrowLeft: () => this.step(toks, -1),
        Home: () => this.set({ pos: '0' }),
        End: () => this.set({ pos: String(row.length - 1) }),
        PageDown: () => this.goTurn(toks, turn + 1),
        PageUp: () => this.goTurn(toks, turn - 1),
        ' ': () => this.play(toks),
      };
      if (k[e.key]) {
        e.preventDefault();
        k[e.key]();
      }
    };
    const totalAction = t.turns.reduce((a, x) => a + x.actionIds.length, 0);
    return html`<section class="card traj-replay" aria-labelledby="replay-h" data-traj=${index}>
      <h2 id="replay-h">Replay <span class="sub"><code>${t.taskId}</code> under <code class="hid">${t.harnessId}</code></span></h2>
      <dl class="facts traj-facts">
        <dt>Method</dt><dd>${t.method} · seed ${t.seed} · RL step ${t.step} · group ${t.group}</dd>
        <dt>Outcome</dt><dd id="traj-result" class=${t.pass ? 'yes' : 'no'}>${t.pass ? 'pass' : 'fail'} · reward ${t.reward ?? '—'} · score ${t.score ?? '—'}${t.truncated ? ' · truncated' : ''}${t.envFailed ? ' · environment failed' : ''}</dd>
        <dt></dt><dd class="desc" id="traj-reward-note">reward = the verifier's pass (1) or fail (0): what RL trains on; score = its partial credit (share of sub-checks passed), shown only</dd>
        <dt>Advantage</dt><dd>${Array.isArray(t.advantage) ? `per token (PPO), |A| ≤ ${scale.toFixed(3)}` : `${t.advantage ?? '—'} on every action token (GRPO)`}</dd>
        <dt>Tokens</dt><dd>${t.turns.length} turn${t.turns.length === 1 ? '' : 's'}, ${totalAction} sampled</dd>
      </dl>
      ${tagsList(t)}
      <div class="replay-controls" role="toolbar" aria-label="Replay controls">
        <button type="button" data-step="first" @click=${() => this.set({ turn: '1', pos: '0' })}>« First</button>
        <button type="button" data-step="prev" @click=${() => this.step(toks, -1)}>◀ Prev token</button>
        <button type="button" data-step="play" aria-pressed=${playing ? 'true' : 'false'} @click=${() => this.play(toks)}>${playing ? '❚❚ Pause' : '▶ Play'}</button>
        <button type="button" data-step="next" @click=${() => this.step(toks, 1)}>Next token ▶</button>
        <button type="button" data-step="last" @click=${() => this.set({ turn: String(toks.length), pos: String((toks[toks.length - 1]?.length ?? 1) - 1) })}>Last »</button>
        <div class="field inline"><label for="traj-speed">Speed</label>
          <select id="traj-speed" @change=${(e: Event) => (this.stop(), this.set({ speed: (e.target as HTMLSelectElement).value }))}>
            ${SPEEDS.map((s) => html`<option value=${s} ?selected=${this.inputs.speed === s}>${s} tokens/s</option>`)}
          </select></div>
        <div class="field inline"><label for="traj-turn">Turn</label>
          <select id="traj-turn" @change=${(e: Event) => (this.stop(), this.goTurn(toks, Number((e.target as HTMLSelectElement).value)))}>
            ${t.turns.map((x, i) => html`<option value=${i + 1} ?selected=${turn === i + 1}>${i + 1} of ${t.turns.length} — ${x.kind}</option>`)}
          </select></div>
        <div class="field inline"><label for="traj-color">Colour by</label>
          <select id="traj-color" @change=${(e: Event) => this.set({ color: (e.target as HTMLSelectElement).value })}>
            <option value="mask" ?selected=${mode === 'mask'}>loss mask</option>
            <option value="adv" ?selected=${mode === 'adv'}>advantage</option>
          </select></div>
      </div>
      ${this.legend(mode, scale)}
      ${tokenizerError ? html`<p class="note">${tokenizerError}</p>` : nothing}
      <p class="note" id="traj-cursor" aria-live="polite">Turn ${turn} of ${toks.length} (${u?.kind ?? ''}) · token ${pos + 1} of ${row.length}${
        cur
          ? html` · id ${cur.id} <code>${tokenizer && cur.id >= 0 && cur.id < tokenizer.vocabSize ? (tokenizer.isSpecial(cur.id) ? tokenizer.decode([cur.id]) : JSON.stringify(readableToken(tokenizer.tokenBytes(cur.id)))) : `#${cur.id}`}</code> · ${cur.action ? html`<strong>action</strong> (mask 1), log π ${cur.logprob?.toFixed(3) ?? '—'}, A ${cur.advantage?.toFixed(3) ?? '—'}` : 'context (mask 0)'}`
          : nothing
      }</p>
      <div class="tokens" id="traj-tokens" tabindex="0" role="group"
        aria-label=${`Tokens of turn ${turn}; arrow keys step, Home/End go to the turn's ends, Page Up/Down change turn, Space plays`}
        @keydown=${onKey}>${u && u.contextOffset > 0 ? html`<span class="dropped">… ${u.contextOffset} earlier context tokens not stored …\n</span>` : nothing}${row.map(
          (x) => html`<span class=${`tok ${x.action ? 'act' : 'ctx'}${x.pos === pos ? ' cur' : x.pos > pos ? ' future' : ''}`}
            data-mask=${x.action ? '1' : '0'} style=${`background:${bg(x)}${mode === 'adv' && x.action && x.advantage !== null && scale > 0 && Math.abs(x.advantage) / scale > 0.6 ? ';color:#fff' : ''}`}
            title=${`${x.action ? 'action' : 'context'} #${x.pos} id ${x.id}${x.action ? ` log π ${x.logprob?.toFixed(3) ?? '—'} A ${x.advantage?.toFixed(3) ?? '—'}` : ''}`}
            @click=${() => (this.stop(), this.set({ pos: String(x.pos) }))}>${tokenText(x.id)}</span>`,
        )}</div>
    </section>`;
  }

  private legend(mode: 'mask' | 'adv', scale: number): TemplateResult {
    if (mode === 'mask')
      return html`<ul class="legend" id="traj-legend">
        <li><span class="swatch" style=${`background:${CONTEXT_BG}`}></span>context (loss mask 0)</li>
        <li><span class="swatch" style=${`background:${ACTION_BG}`}></span>sampled action token (loss mask 1)</li>
      </ul>`;
    return html`<div class="adv-legend" id="traj-legend">
      <span>${scale > 0 ? (-scale).toFixed(3) : '0'}</span>
      <span class="adv-bar" style=${`background:linear-gradient(to right, ${advantageColor(-1, 1)}, #fff, ${advantageColor(1, 1)})`} aria-hidden="true"></span>
      <span>${scale > 0 ? `+${scale.toFixed(3)}` : '0'}</span>
      <span class="note">advantage of action tokens: red &lt; 0 (made less likely), blue &gt; 0 (made more likely)${scale === 0 ? '; all 0 here (a group with equal rewards)' : ''}; context grey</span>
    </div>`;
  }
}
