/**
 * The Inspect view (docs/ARCHITECTURE.md "Harness runtime", "Sandbox, tasks and behaviour tags"): one task under two harnesses. Both contexts side by
 * side with the lines that differ highlighted, and the scripted expert's episode under each,
 * turn by turn: the exact context the policy sees at that turn, its action, the observation,
 * the behaviour tags so far, and the verifier's result at the end.
 *
 * Episodes come from `runExpertEpisode` (src/harness), contexts are `TurnRecord.context`
 * (what the trainer scores against), so what is shown is what a policy would see.
 * A link opens the lesson in Train (train_links.ts).
 * URL parameters: suite · family · tier · seed (or task=suite/family/tN/seed) · a, b (harness
 * ids) · ta, tb (1-based turn shown on each side).
 */
import { html, nothing, render, type TemplateResult } from 'lit-html';
import { live } from 'lit-html/directives/live.js';
import { DEFAULT_SPACE, formatHarnessId, parseHarnessId } from '../../design';
import {
  BLACKBOX_IDS,
  computeTags,
  type ExpertEpisode,
  isBlackboxId,
  runExpertEpisode,
  type BehaviourTags,
  type TurnRecord,
} from '../../harness';
import { getSuite, SUITE_NAMES, splitOf, taskSet, type SuiteName, type Task } from '../../tasks';
import { errorId, field, parseChoice, parseIntField, type Parsed } from '../fields';
import { markLines, type MarkedLine } from '../text_diff';
import type { Tokenizer } from '../../model/tokenizer';
import { encodeContext } from '../../episode/rows';
import { appTokenizer } from '../app_tokenizer';
import { lessonRoute, lessonScope } from '../train_links';

let tokenizer: Tokenizer | null = null;
const tokenizerReady = appTokenizer.then(
  (t) => void (tokenizer = t),
  () => {},
);
/** Token counts of contexts as the trainer encodes them (episode/rows encodeContext), cached by text. */
const tokenCounts = new Map<string, number>();
function contextTokens(text: string): number | null {
  if (!tokenizer) return null;
  let n = tokenCounts.get(text);
  if (n === undefined) {
    n = encodeContext(tokenizer, text).length;
    if (tokenCounts.size > 256) tokenCounts.delete(tokenCounts.keys().next().value!);
    tokenCounts.set(text, n);
  }
  return n;
}

/**
 * Where two episodes' contexts first differ: the first turn (1-based) at which the context
 * texts or the actions differ, or null when they are the same at every turn both have.
 */
function firstDifferingTurn(a: ExpertEpisode, b: ExpertEpisode): number | null {
  const n = Math.min(a.turns.length, b.turns.length);
  for (let t = 0; t < n; t++) if (a.turns[t].context !== b.turns[t].context || a.turns[t].action !== b.turns[t].action) return t + 1;
  return a.turns.length !== b.turns.length ? n + 1 : null;
}

const INSPECT_DEFAULTS = {
  suite: 'workspace',
  family: 'organize',
  tier: '2',
  seed: '1000000',
  a: 'S0-T0-O0-C0-W0',
  b: 'S1-T1-O1-C1-W1',
  ta: '1',
  tb: '1',
} as const;
type Inputs = Record<keyof typeof INSPECT_DEFAULTS, string>;
type Side = 'a' | 'b';

/** What the black-box harnesses are (they are whole modules, not compositions of S·T·O·C·W). */
const BLACKBOX_INFO: Record<string, { name: string; description: string }> = {
  'bb-coding-cli': {
    name: 'coding CLI',
    description:
      'Read/Write/Edit/Glob/Grep/Bash-style calls, line-numbered reads, edit requires a prior read, todo list, automatic compaction near a context budget.',
  },
  'bb-assistant': {
    name: 'personal assistant',
    description: '@read/@write/@exec/@reply directives, bootstrap files and a skill note in the prompt, old tool results pruned.',
  },
};

/** Samples offered in the task list (test split, balanced over families × tiers). */
const SAMPLE_TASKS = 12;

/** A harness id: one of the in-space ids or a black-box id. */
function parseHarnessField(label: string, raw: string): Parsed<string> {
  const id = raw.trim();
  if (isBlackboxId(id)) return { ok: true, value: id };
  try {
    return { ok: true, value: formatHarnessId(parseHarnessId(id, DEFAULT_SPACE), DEFAULT_SPACE) };
  } catch (e) {
    return { ok: false, error: `${label}: ${(e as Error).message}; or use ${BLACKBOX_IDS.join(' / ')}` };
  }
}

// Expert episodes are deterministic in (task, harness): cache them so stepping is instant.
const episodeCache = new Map<string, ExpertEpisode | Error>();
function episodeFor(task: Task, harness: string): ExpertEpisode | Error {
  const key = `${task.id}|${harness}`;
  let ep = episodeCache.get(key);
  if (!ep) {
    try {
      ep = runExpertEpisode(task, harness);
    } catch (e) {
      ep = e as Error;
    }
    if (episodeCache.size > 64) episodeCache.delete(episodeCache.keys().next().value!);
    episodeCache.set(key, ep);
  }
  return ep;
}

interface SideState {
  id?: string;
  episode?: ExpertEpisode;
  error?: string;
  /** 1-based turn shown. */
  turn?: number;
  turnError?: string;
}

interface Computed {
  errors: Partial<Record<keyof Inputs, string>>;
  suite?: SuiteName;
  task?: Task;
  sides: Record<Side, SideState>;
}

function computeInspect(inp: Inputs): Computed {
  const errors: Computed['errors'] = {};
  const sides: Record<Side, SideState> = { a: {}, b: {} };
  const suiteP = parseChoice('suite', inp.suite, SUITE_NAMES);
  if (!suiteP.ok) errors.suite = suiteP.error;
  const out: Computed = { errors, sides };
  let task: Task | undefined;
  if (suiteP.ok) {
    out.suite = suiteP.value;
    const suite = getSuite(suiteP.value);
    const fam = suite.families.some((f) => f.name === inp.family) ? inp.family : undefined;
    if (!fam)
      errors.family = `family '${inp.family}' is not in suite '${suite.name}' (families: ${suite.families.map((f) => f.name).join(', ')})`;
    const tier = parseIntField('tier', inp.tier, 1, 3);
    if (!tier.ok) errors.tier = tier.error;
    const seed = parseIntField('seed', inp.seed, 0, Number.MAX_SAFE_INTEGER);
    let seedOk = seed.ok;
    if (!seed.ok) errors.seed = seed.error;
    else {
      try {
        splitOf(seed.value);
      } catch (e) {
        errors.seed = `seed: ${(e as Error).message}`;
        seedOk = false;
      }
    }
    if (fam && tier.ok && seed.ok && seedOk) task = suite.generate(fam, tier.value as 1 | 2 | 3, seed.value);
  }
  out.task = task;
  for (const side of ['a', 'b'] as const) {
    const p = parseHarnessField(`harness ${side.toUpperCase()}`, inp[side]);
    if (!p.ok) {
      errors[side] = p.error;
      continue;
    }
    const s = sides[side];
    s.id = p.value;
    if (!task) continue;
    const ep = episodeFor(task, p.value);
    if (ep instanceof Error) {
      s.error = ep.message;
      continue;
    }
    s.episode = ep;
    const tKey = side === 'a' ? 'ta' : 'tb';
    const t = parseIntField(`turn ${side.toUpperCase()}`, inp[tKey], 1, Math.max(1, ep.turns.length));
    if (t.ok) s.turn = t.value;
    else {
      s.turnError = t.error;
      errors[tKey] = t.error;
    }
  }
  return out;
}

/** Tags of the first `t` turns; the end-of-episode facts (finish, truncation, pass) only at the last turn. */
function tagsAt(ep: ExpertEpisode, task: Task, t: number): BehaviourTags {
  const last = t === ep.turns.length;
  return computeTags(ep.turns.slice(0, t), {
    terminated: last && ep.tags.terminated,
    truncation: last ? ep.tags.truncationReason : null,
    pass: last ? ep.verification.pass : undefined,
    needsStateTracking: task.needsStateTracking,
  });
}

const MARKER_RE = /(<\|(?:system|user|assistant|tool|end)\|>)/;

/** One line of a context, role markers set apart so the message structure is visible. */
function line(l: MarkedLine): TemplateResult {
  const parts = l.text.split(MARKER_RE);
  return html`<span class="ln ${l.same ? '' : 'changed'}">${parts.map((p, i) => (i % 2 ? html`<span class="marker">${p}</span>` : p))}</span>`;
}

export class InspectView {
  private inputs: Inputs = { ...INSPECT_DEFAULTS };
  private samples = new Map<string, Task[]>();

  constructor(
    private readonly el: HTMLElement,
    private readonly setParams: (p: Record<string, string>) => void,
  ) {
    // Real token counts once the vocabulary is there.
    void tokenizerReady.then(() => this.draw());
  }

  show(params: Record<string, string>): void {
    this.inputs = { ...INSPECT_DEFAULTS };
    for (const key of Object.keys(INSPECT_DEFAULTS) as (keyof Inputs)[]) if (params[key] !== undefined) this.inputs[key] = params[key];
    // task=suite/family/tN/seed (as printed by the CLI) sets the four task fields at once.
    const m = params.task ? /^([a-z]+)\/([a-z0-9-]+)\/t(\d+)\/(\d+)$/.exec(params.task.trim()) : null;
    if (m) Object.assign(this.inputs, { suite: m[1], family: m[2], tier: m[3], seed: m[4] });
    this.draw();
  }

  private update(patch: Partial<Inputs>): void {
    this.inputs = { ...this.inputs, ...patch };
    const p: Record<string, string> = {};
    for (const key of Object.keys(INSPECT_DEFAULTS) as (keyof Inputs)[])
      if (this.inputs[key] !== INSPECT_DEFAULTS[key]) p[key] = this.inputs[key];
    this.setParams(p);
    this.draw();
  }

  private samplesFor(suite: SuiteName): Task[] {
    let s = this.samples.get(suite);
    if (!s) this.samples.set(suite, (s = taskSet(suite, 'test', SAMPLE_TASKS, 0)));
    return s;
  }

  private draw(): void {
    const c = computeInspect(this.inputs);
    const focused =
      document.activeElement instanceof HTMLButtonElement && this.el.contains(document.activeElement) ? document.activeElement : null;
    render(this.template(c), this.el);
    // A stepper button that the step disabled (Next at the last turn) would drop the focus to
    // <body>: move it to the turn field of the same side.
    if (focused?.disabled && focused.dataset.step) {
      focused.closest('.stepper')?.querySelector<HTMLInputElement>('input.turn-input')?.focus();
    }
    // Show the newest part of a long context after a step (turn 1 starts at the top).
    for (const pre of this.el.querySelectorAll<HTMLElement>('pre.context')) {
      const t = pre.dataset.turn ?? '';
      if (pre.dataset.scrolledFor !== t) {
        pre.dataset.scrolledFor = t;
        pre.scrollTop = t === '1' ? 0 : pre.scrollHeight;
      }
    }
  }

  /**
   * A link to the lesson (train_links.ts). The lesson's training harnesses are fixed by its
   * preset, not chosen here, so the link carries nothing of this view; the note says what it
   * trains and, when that is the base harness alone, whether a side here shows it.
   */
  private trainLink(c: Computed): TemplateResult {
    const l = lessonScope();
    const shown = (['a', 'b'] as const)
      .filter((side) => l.harness !== null && c.sides[side].id === l.harness)
      .map((side) => side.toUpperCase());
    const what = l.harness
      ? html`trains the base harness <code>${l.harness}</code> alone${shown.length ? ` (harness ${shown.join(' and ')} here)` : ''}`
      : html`compares ${l.methods.map((m, i) => html`${i ? ' with ' : ''}<em>${m}</em>`)}`;
    return html`<p class="note train-link" id="inspect-train-link"><a id="inspect-train" href=${lessonRoute()}>Train (lesson)</a>
      — the lesson ${what} on tier ≤ ${l.maxTier} tasks of ${l.suites.join(' and ')}; its harnesses are fixed by its preset, not chosen here.
      To train through a set of harnesses, use <a href="#/design">Train on this design</a> in Design.</p>`;
  }

  private template(c: Computed): TemplateResult {
    const e = c.errors;
    const suite = c.suite ? getSuite(c.suite) : undefined;
    const left = c.sides.a;
    const right = c.sides.b;
    const ctx = (s: SideState) => (s.episode && s.turn ? s.episode.turns[s.turn - 1].context : undefined);
    const ca = ctx(left);
    const cb = ctx(right);
    const marks = ca !== undefined && cb !== undefined ? markLines(ca, cb) : undefined;
    const single = (text: string | undefined): MarkedLine[] | undefined => text?.split('\n').map((t) => ({ text: t, same: true }));
    return html`
      <section class="intro">
        <h1 tabindex="-1">Inspect</h1>
        <p>The same task under two harnesses. A harness decides what the policy sees (system prompt, tool syntax,
          observations, history) and which actions it accepts. Step through the scripted expert's episode under each:
          every turn shows the exact text the policy is given and the action it answers with.</p>
      </section>
      <form class="controls card" aria-label="Task" @submit=${(ev: Event) => ev.preventDefault()}>
        ${field(
          'inspect-suite',
          'Suite',
          html`<select id="inspect-suite" aria-invalid=${e.suite ? 'true' : 'false'} aria-describedby=${errorId('inspect-suite')}
            @change=${(ev: Event) => {
              const s = (ev.target as HTMLSelectElement).value as SuiteName;
              const first = this.samplesFor(s)[0];
              this.update({ suite: s, family: first.family, tier: String(first.tier), seed: String(first.seed), ta: '1', tb: '1' });
            }}>
            ${SUITE_NAMES.map((s) => html`<option value=${s} .selected=${live(this.inputs.suite === s)}>${s}</option>`)}
          </select>`,
          e.suite,
        )}
        ${field(
          'inspect-family',
          'Family',
          html`<select id="inspect-family" aria-invalid=${e.family ? 'true' : 'false'} aria-describedby=${errorId('inspect-family')}
            @change=${(ev: Event) => this.update({ family: (ev.target as HTMLSelectElement).value, ta: '1', tb: '1' })}>
            ${(suite?.families ?? []).map((f) => html`<option value=${f.name} title=${f.description} .selected=${live(this.inputs.family === f.name)}>${f.name}</option>`)}
            ${suite?.families.some((f) => f.name === this.inputs.family) ? nothing : html`<option selected value=${this.inputs.family}>${this.inputs.family} (invalid)</option>`}
          </select>`,
          e.family,
        )}
        ${field(
          'inspect-tier',
          'Tier',
          html`<select id="inspect-tier" aria-invalid=${e.tier ? 'true' : 'false'} aria-describedby=${errorId('inspect-tier')}
            @change=${(ev: Event) => this.update({ tier: (ev.target as HTMLSelectElement).value, ta: '1', tb: '1' })}>
            ${['1', '2', '3'].map((t) => html`<option value=${t} .selected=${live(this.inputs.tier === t)}>${t}</option>`)}
            ${['1', '2', '3'].includes(this.inputs.tier) ? nothing : html`<option selected value=${this.inputs.tier}>${this.inputs.tier} (invalid)</option>`}
          </select>`,
          e.tier,
        )}
        ${field(
          'inspect-seed',
          'Task seed',
          html`<input id="inspect-seed" type="text" inputmode="numeric" autocomplete="off" style="width:8rem" .value=${live(this.inputs.seed)}
            aria-invalid=${e.seed ? 'true' : 'false'} aria-describedby=${errorId('inspect-seed')}
            @change=${(ev: Event) => this.update({ seed: (ev.target as HTMLInputElement).value.trim(), ta: '1', tb: '1' })} />`,
          e.seed,
          'train 0..999999 · test 1000000..1999999',
        )}
        ${
          c.suite
            ? field(
                'inspect-sample',
                'Or pick a task',
                html`<select id="inspect-sample" @change=${(ev: Event) => {
                  const t = this.samplesFor(c.suite!).find((x) => x.id === (ev.target as HTMLSelectElement).value);
                  if (t) this.update({ family: t.family, tier: String(t.tier), seed: String(t.seed), ta: '1', tb: '1' });
                }}>
                <option value="" .selected=${live(!this.samplesFor(c.suite).some((t) => t.id === c.task?.id))}>— ${SAMPLE_TASKS} test tasks —</option>
                ${this.samplesFor(c.suite).map((t) => html`<option value=${t.id} .selected=${live(t.id === c.task?.id)}>${t.family} · t${t.tier} · ${t.seed}</option>`)}
              </select>`,
              )
            : nothing
        }
      </form>
      ${
        c.task
          ? html`<section class="card task-card" aria-labelledby="task-h">
            <h2 id="task-h">Task <code id="task-id">${c.task.id}</code> <span class="sub">${splitOf(c.task.seed)} split</span></h2>
            <p class="instruction">${c.task.instruction}</p>
          </section>`
          : nothing
      }
      ${
        marks
          ? html`<div class="note diff-bar" id="diff-summary">
            <span>${marks.changed === 0 ? 'The two contexts shown are identical.' : html`<strong>${marks.changed}</strong> lines differ between the two contexts shown (highlighted).`}</span>
            ${this.sameHint(c, marks.changed)}
            <span class="both">Step both:
              <button type="button" class="small" @click=${() => this.stepBoth(c, -1)}>◀ back</button>
              <button type="button" class="small" @click=${() => this.stepBoth(c, +1)}>forward ▶</button></span>
          </div>`
          : nothing
      }
      ${this.trainLink(c)}
      <div class="sides">
        ${this.side('a', 'Harness A', c, marks ? marks.left : single(ca))}
        ${this.side('b', 'Harness B', c, marks ? marks.right : single(cb))}
      </div>
    `;
  }

  /**
   * Two different harnesses whose contexts are identical at the turn shown on both sides: the
   * differing components change nothing yet (O before the first observation, C1 before k
   * observations, C2 before its budget is reached). Say so, and offer the first turn where the
   * episodes differ.
   */
  private sameHint(c: Computed, changed: number): TemplateResult | typeof nothing {
    const a = c.sides.a;
    const b = c.sides.b;
    if (changed !== 0 || !a.episode || !b.episode || !a.id || !b.id || a.id === b.id || a.turn !== b.turn) return nothing;
    let which = 'the two harnesses';
    if (!isBlackboxId(a.id) && !isBlackboxId(b.id)) {
      const la = parseHarnessId(a.id, DEFAULT_SPACE);
      const lb = parseHarnessId(b.id, DEFAULT_SPACE);
      const diff = DEFAULT_SPACE.components.flatMap((comp, j) =>
        la[j] !== lb[j] ? [`${comp.key} (${comp.name}: ${comp.realizations[la[j]].id} → ${comp.realizations[lb[j]].id})`] : [],
      );
      which = `${diff.length > 1 ? 'components' : 'component'} ${diff.join(', ')}`;
    }
    const first = firstDifferingTurn(a.episode, b.episode);
    return html`<span class="same-hint" id="same-hint" role="note">${which.charAt(0).toUpperCase() + which.slice(1)} change${which.startsWith('component ') ? 's' : ''} nothing at turn ${a.turn}.
      ${
        first === null
          ? ' Their contexts and actions are the same at every turn of this episode.'
          : html` They first differ at turn ${first}:
          <button type="button" class="small" id="same-hint-go" @click=${() => this.update({ ta: String(Math.min(first, a.episode!.turns.length)), tb: String(Math.min(first, b.episode!.turns.length)) })}>show turn ${first}</button>`
      }</span>`;
  }

  private stepBoth(c: Computed, delta: number): void {
    const patch: Partial<Inputs> = {};
    for (const side of ['a', 'b'] as const) {
      const s = c.sides[side];
      if (!s.episode) continue;
      const n = s.episode.turns.length;
      patch[side === 'a' ? 'ta' : 'tb'] = String(Math.min(n, Math.max(1, (s.turn ?? 1) + delta)));
    }
    this.update(patch);
  }

  private picker(side: Side, c: Computed): TemplateResult {
    const key = side;
    const id = `inspect-${side}`;
    const err = c.errors[key];
    const cur = c.sides[side].id;
    const bb = cur !== undefined && isBlackboxId(cur);
    const levels = cur && !bb ? parseHarnessId(cur, DEFAULT_SPACE) : [0, 0, 0, 0, 0];
    const set = (v: string) => this.update({ [key]: v, [side === 'a' ? 'ta' : 'tb']: '1' } as Partial<Inputs>);
    const kind = bb ? cur! : 'space';
    return html`<div class="picker">
      <div class="picker-row">
        ${field(
          `${id}-kind`,
          'Kind',
          html`<select id=${`${id}-kind`} @change=${(ev: Event) => {
            const v = (ev.target as HTMLSelectElement).value;
            set(v === 'space' ? formatHarnessId(levels, DEFAULT_SPACE) : v);
          }}>
            <option value="space" .selected=${live(kind === 'space')}>in-space (S·T·O·C·W)</option>
            ${BLACKBOX_IDS.map((b) => html`<option value=${b} .selected=${live(kind === b)}>black-box: ${BLACKBOX_INFO[b]?.name ?? b}</option>`)}
          </select>`,
        )}
        ${field(
          id,
          'Harness id',
          html`<input id=${id} type="text" autocomplete="off" spellcheck="false" style="width:10.5rem" .value=${live(this.inputs[key])}
            aria-invalid=${err ? 'true' : 'false'} aria-describedby=${errorId(id)}
            @change=${(ev: Event) => set((ev.target as HTMLInputElement).value.trim())} />`,
          err,
        )}
      </div>
      ${
        bb
          ? html`<p class="desc bb-desc">${BLACKBOX_INFO[cur!]?.description ?? ''}</p>`
          : html`<div class="picker-row components" role="group" aria-label=${`components of harness ${side.toUpperCase()}`}>
            ${DEFAULT_SPACE.components.map((comp, j) =>
              field(
                `${id}-${comp.key}`,
                `${comp.key} ${comp.name}`,
                html`<select id=${`${id}-${comp.key}`} ?disabled=${cur === undefined} @change=${(ev: Event) => {
                  const v = [...levels];
                  v[j] = Number((ev.target as HTMLSelectElement).value);
                  set(formatHarnessId(v, DEFAULT_SPACE));
                }}>
                  ${comp.realizations.map((r, l) => html`<option value=${l} title=${r.description} .selected=${live(levels[j] === l)}>${r.id} ${r.name}</option>`)}
                </select>`,
              ),
            )}
          </div>`
      }
    </div>`;
  }

  private side(side: Side, title: string, c: Computed, lines: MarkedLine[] | undefined): TemplateResult {
    const s = c.sides[side];
    const ep = s.episode;
    const turnKey = side === 'a' ? 'ta' : 'tb';
    const head = html`<h2 id=${`side-${side}-h`}>${title} <code class="hid">${s.id ?? '?'}</code></h2>${this.picker(side, c)}`;
    if (!c.task || !s.id)
      return html`<section class="card side" id=${`side-${side}`} aria-labelledby=${`side-${side}-h`}>${head}<p class="note">Fix the inputs above to see the episode.</p></section>`;
    if (!ep)
      return html`<section class="card side" id=${`side-${side}`} aria-labelledby=${`side-${side}-h`}>${head}<p class="error-box">Could not run the expert: ${s.error}</p></section>`;
    const n = ep.turns.length;
    const t = s.turn;
    const rec: TurnRecord | undefined = t ? ep.turns[t - 1] : undefined;
    const go = (v: number) => this.update({ [turnKey]: String(Math.min(n, Math.max(1, v))) } as Partial<Inputs>);
    const tags = t ? tagsAt(ep, c.task, t) : undefined;
    const ctxText = rec?.context ?? '';
    return html`<section class="card side" id=${`side-${side}`} aria-labelledby=${`side-${side}-h`}>
      ${head}
      ${ep.error ? html`<p class="error-box">Expert failed under this harness: ${ep.error}</p>` : nothing}
      <div class="stepper" role="group" aria-label=${`turns of harness ${side.toUpperCase()}`}>
        <button type="button" data-step="first" ?disabled=${!t || t <= 1} @click=${() => go(1)} aria-label="first turn">« First</button>
        <button type="button" data-step="prev" ?disabled=${!t || t <= 1} @click=${() => go((t ?? 1) - 1)}>◀ Prev turn</button>
        ${field(
          `inspect-${turnKey}`,
          'Turn',
          html`<input id=${`inspect-${turnKey}`} class="turn-input" type="text" inputmode="numeric" style="width:3.2rem" .value=${live(this.inputs[turnKey])}
              aria-invalid=${s.turnError ? 'true' : 'false'} aria-describedby=${errorId(`inspect-${turnKey}`)}
              @change=${(ev: Event) => this.update({ [turnKey]: (ev.target as HTMLInputElement).value.trim() } as Partial<Inputs>)} />
            <span class="of" data-turn-count=${n}>of ${n}</span>`,
          s.turnError,
        )}
        <button type="button" data-step="next" ?disabled=${!t || t >= n} @click=${() => go((t ?? 0) + 1)}>Next turn ▶</button>
        <button type="button" data-step="last" ?disabled=${!t || t >= n} @click=${() => go(n)} aria-label="last turn">Last »</button>
      </div>
      ${
        rec && tags
          ? html`
          <h3>Context the policy sees <span class="sub" data-tokens=${contextTokens(ctxText) ?? ''}>${ctxText.length} chars · ${contextTokens(ctxText) ?? `≈${Math.ceil(ctxText.length / 4)}`} tokens${tokenizer ? '' : ' (estimate: tokenizer loading)'}</span></h3>
          <pre class="context" data-turn=${String(t)} tabindex="0" aria-label=${`context of harness ${side.toUpperCase()} at turn ${t}`}>${(lines ?? []).map(line)}</pre>
          <h3>Action <span class="kind kind-${rec.kind}">${rec.kind.replace('_', ' ')}</span>${rec.toolError ? html` <span class="kind kind-tool_error">tool error</span>` : nothing}</h3>
          <pre class="action">${rec.action}</pre>
          ${
            rec.calls.length
              ? html`<p class="calls">Canonical call${rec.calls.length > 1 ? 's' : ''}: ${rec.calls.map(
                  (cl) =>
                    html`<code>${cl.tool}(${Object.entries(cl.args)
                      .map(([k, v]) => `${k}=${JSON.stringify(v).slice(0, 60)}`)
                      .join(', ')})</code> `,
                )}</p>`
              : nothing
          }
          <h3>Observation</h3>
          <pre class="observation">${rec.observation || '(none)'}</pre>
          <h3>Behaviour tags <span class="sub">turns 1..${t}</span></h3>
          <ul class="tags" data-side=${side}>
            <li>tool calls <strong>${tags.toolCalls}</strong></li>
            <li class=${tags.parseErrors ? 'warn' : ''}>parse errors <strong>${tags.parseErrors}</strong></li>
            <li class=${tags.workflowViolations ? 'warn' : ''}>workflow violations <strong>${tags.workflowViolations}</strong></li>
            <li class=${tags.toolErrors ? 'warn' : ''}>tool errors <strong>${tags.toolErrors}</strong></li>
            <li>recovered <strong>${tags.recovered === null ? '–' : tags.recovered ? 'yes' : 'no'}</strong></li>
            <li class=${tags.stateTrackingErrors ? 'warn' : ''}>state-tracking errors <strong>${tags.stateTrackingErrors}</strong></li>
            ${t === n ? html`<li>${tags.terminated ? 'terminated (finish)' : tags.truncated ? `truncated (${tags.truncationReason})` : 'not finished'}</li>` : nothing}
          </ul>
          ${
            t === n
              ? html`<div class="verdict ${ep.verification.pass ? 'pass' : 'fail'}" data-verdict=${ep.verification.pass ? 'pass' : 'fail'}>
                <h3>Verifier: ${ep.verification.pass ? 'pass' : 'fail'} <span class="sub">score ${ep.verification.score.toFixed(2)}</span></h3>
                <ul>${ep.verification.checks.map((ch) => html`<li class=${ch.pass ? 'yes' : 'no'}>${ch.pass ? '✓' : '✗'} ${ch.name}${ch.detail ? html` <span class="desc">${ch.detail}</span>` : nothing}</li>`)}</ul>
              </div>`
              : html`<p class="note">The verifier checks the final workspace after turn ${n}.</p>`
          }
        `
          : nothing
      }
    </section>`;
  }
}
