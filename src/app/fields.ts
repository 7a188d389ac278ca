/**
 * Form fields with their validation: parsers that return a value or an error message naming
 * the field and the bad value, and the lit-html template of a labelled field whose error is
 * shown right next to the control (`aria-invalid` + `aria-describedby`, so screen readers
 * read the error with the field).
 */
import { html, nothing, type TemplateResult } from 'lit-html';

/** A parsed field: a value, or an error message to show next to the field. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export const ok = <T>(value: T): Parsed<T> => ({ ok: true, value });
export const bad = <T>(error: string): Parsed<T> => ({ ok: false, error });

/**
 * An integer in [min, max] written in decimal (no exponent, no fraction).
 * @param label the field's name, used in the message.
 */
export function parseIntField(label: string, raw: string, min: number, max: number): Parsed<number> {
  const s = raw.trim();
  if (!/^-?\d+$/.test(s)) return bad(`${label} must be a whole number, got '${raw}'`);
  const v = Number(s);
  if (!Number.isSafeInteger(v) || v < min || v > max) return bad(`${label} must be in ${min}..${max}, got ${s}`);
  return ok(v);
}

/**
 * A comma-separated list of level counts, e.g. '3,3,3,3,3' (one per component, each ≥ 2,
 * at most 26 components, at most `maxSpace` configurations in total).
 */
export function parseLevelsField(raw: string, maxSpace: number): Parsed<number[]> {
  const parts = raw.split(',').map((p) => p.trim());
  if (raw.trim() === '') return bad('levels: enter one level count per component, e.g. 3,3,3,3,3');
  for (let i = 0; i < parts.length; i++) {
    if (!/^\d+$/.test(parts[i]) || Number(parts[i]) < 2) {
      return bad(`levels: entry ${i + 1} ('${parts[i]}') must be a whole number ≥ 2`);
    }
  }
  if (parts.length > 26) return bad(`levels: at most 26 components, got ${parts.length}`);
  const levels = parts.map(Number);
  const size = levels.reduce((a, s) => a * s, 1);
  if (size > maxSpace) {
    return bad(
      `levels: ${levels.join('×')} = ${size} configurations; the app enumerates at most ${maxSpace} (use \`hlab design --levels\` for larger spaces)`,
    );
  }
  return ok(levels);
}

/** One of a fixed list of choices. */
export function parseChoice<T extends string>(label: string, raw: string, choices: readonly T[]): Parsed<T> {
  return (choices as readonly string[]).includes(raw) ? ok(raw as T) : bad(`${label} must be one of ${choices.join(', ')}, got '${raw}'`);
}

/** The id of a field's error element (for aria-describedby). */
export const errorId = (id: string) => `${id}-error`;

/**
 * A labelled field. The control must carry `id` and should bind `aria-invalid` and
 * `aria-describedby=${errorId(id)}`; the error (if any) appears next to it, with role
 * 'alert' so it is announced when it appears.
 */
export function field(id: string, label: string, control: TemplateResult, error?: string | null, hint?: string): TemplateResult {
  return html`<div class="field ${error ? 'has-error' : ''}" data-field=${id}>
    <label for=${id}>${label}</label>
    ${control}
    ${hint && !error ? html`<span class="hint">${hint}</span>` : nothing}
    <span class="error" id=${errorId(id)} role=${error ? 'alert' : nothing}>${error ?? ''}</span>
  </div>`;
}
