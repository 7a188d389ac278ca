/**
 * Writers of `hlab export` (docs/SCALE-OUT.md):
 * - verl: parquet (hyparquet-writer) with verl's RLHFDataset columns — `data_source`,
 *   `prompt` (list of {role, content}), `ability`, `agent_name` (the agent loop of
 *   integrations/verl), `reward_model` {style, ground_truth}, `extra_info` (harness and task
 *   keys, levels, tool docs, `tools_kwargs`, `interaction_kwargs`).
 * - slime: jsonl, one object per line with `prompt` (chat messages), `label` (the task id),
 *   `metadata` (harness and task keys) and `tools` (per-sample function schemas).
 * Beside the rows: design.json (the OA table, training and held-out sets), schedule.json (the
 * task → harness schedule) and manifest.json (files, row counts, how each set was chosen).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import type { ExportDataset, ExportRow, RowSplit } from './dataset';

export type ExportFormat = 'verl' | 'slime';
export const EXPORT_FORMATS: readonly ExportFormat[] = ['verl', 'slime'];

/** Name of the agent loop integrations/verl registers (rows' `agent_name`). */
const VERL_AGENT_NAME = 'hlab_agent';

// ---- parquet schema, declared once --------------------------------------------------------

type Field =
  | { name: string; kind: 'string' | 'int32' | 'bool'; optional?: boolean }
  | { name: string; kind: 'struct'; fields: Field[] }
  | { name: string; kind: 'list'; element: Field[] };

const str = (name: string): Field => ({ name, kind: 'string' });
const i32 = (name: string, optional = false): Field => ({ name, kind: 'int32', optional });
const episodeKeys: Field[] = [str('suite'), str('task'), str('harness'), i32('max_turns')];

/** The verl row: top-level columns. */
const VERL_FIELDS: Field[] = [
  str('data_source'),
  { name: 'prompt', kind: 'list', element: [str('role'), str('content')] },
  str('ability'),
  str('agent_name'),
  { name: 'reward_model', kind: 'struct', fields: [str('style'), str('ground_truth')] },
  {
    name: 'extra_info',
    kind: 'struct',
    fields: [
      i32('index'),
      str('split'),
      str('suite'),
      str('task'),
      str('family'),
      i32('tier'),
      str('harness'),
      { name: 'blackbox', kind: 'bool' },
      { name: 'levels', kind: 'struct', fields: ['S', 'T', 'O', 'C', 'W'].map((k) => i32(k, true)) },
      str('role'),
      i32('distance', true),
      i32('slot'),
      i32('max_turns'),
      str('instruction'),
      str('raw_prompt_text'),
      str('tool_docs'),
      str('tools_json'),
      {
        name: 'tools_kwargs',
        kind: 'struct',
        fields: [{ name: 'hlab', kind: 'struct', fields: [{ name: 'create_kwargs', kind: 'struct', fields: episodeKeys }] }],
      },
      { name: 'interaction_kwargs', kind: 'struct', fields: [str('name'), ...episodeKeys] },
    ],
  },
];

/** hyparquet SchemaElement list (depth-first) for `fields`. */
function schemaElements(fields: Field[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const visit = (f: Field) => {
    if (f.kind === 'struct') {
      out.push({ name: f.name, repetition_type: 'REQUIRED', num_children: f.fields.length });
      f.fields.forEach(visit);
    } else if (f.kind === 'list') {
      out.push({ name: f.name, repetition_type: 'REQUIRED', converted_type: 'LIST', num_children: 1 });
      out.push({ name: 'list', repetition_type: 'REPEATED', num_children: 1 });
      out.push({ name: 'element', repetition_type: 'REQUIRED', num_children: f.element.length });
      f.element.forEach(visit);
    } else {
      const rep = f.optional ? 'OPTIONAL' : 'REQUIRED';
      if (f.kind === 'string') out.push({ name: f.name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: rep });
      else if (f.kind === 'int32') out.push({ name: f.name, type: 'INT32', repetition_type: rep });
      else out.push({ name: f.name, type: 'BOOLEAN', repetition_type: rep });
    }
  };
  fields.forEach(visit);
  return [{ name: 'schema', num_children: fields.length }, ...out];
}

const episodeKeyValues = (r: ExportRow) => ({ suite: r.suite, task: r.task, harness: r.harness, max_turns: r.maxTurns });

/** One verl row as a plain object (the parquet row). */
function verlRow(r: ExportRow): Record<string, unknown> {
  return {
    data_source: `hlab/${r.suite}`,
    prompt: r.messages.map((m) => ({ role: m.role, content: m.content })),
    ability: 'agent',
    agent_name: VERL_AGENT_NAME,
    reward_model: { style: 'hlab_serve', ground_truth: r.task },
    extra_info: {
      index: r.index,
      split: r.split,
      suite: r.suite,
      task: r.task,
      family: r.family,
      tier: r.tier,
      harness: r.harness,
      blackbox: r.blackbox,
      levels: r.levels,
      role: r.role,
      distance: r.distance,
      slot: r.slot,
      max_turns: r.maxTurns,
      instruction: r.instruction,
      raw_prompt_text: r.prompt,
      tool_docs: r.toolDocs,
      tools_json: JSON.stringify(r.tools),
      tools_kwargs: { hlab: { create_kwargs: episodeKeyValues(r) } },
      interaction_kwargs: { name: 'hlab', ...episodeKeyValues(r) },
    },
  };
}

/** Parquet bytes of verl rows. @throws Error from the writer on a row that does not fit the schema. */
function verlParquet(rows: readonly ExportRow[]): ArrayBuffer {
  const objs = rows.map(verlRow);
  const columnData = VERL_FIELDS.map((f) => ({ name: f.name, data: objs.map((o) => o[f.name]) }));
  return parquetWriteBuffer({
    columnData,
    schema: schemaElements(VERL_FIELDS) as never,
    kvMetadata: [{ key: 'hlab.format', value: 'verl-v1' }],
  });
}

/** One slime sample (a jsonl line's object). */
function slimeRow(r: ExportRow): Record<string, unknown> {
  return {
    prompt: r.messages.map((m) => ({ role: m.role, content: m.content })),
    label: r.task,
    metadata: {
      index: r.index,
      split: r.split,
      ...episodeKeyValues(r),
      family: r.family,
      tier: r.tier,
      blackbox: r.blackbox,
      levels: r.levels,
      role: r.role,
      distance: r.distance,
      slot: r.slot,
      instruction: r.instruction,
      raw_prompt_text: r.prompt,
      tool_docs: r.toolDocs,
    },
    tools: r.tools,
  };
}

/** jsonl text of slime rows (one JSON object per line, trailing newline). */
function slimeJsonl(rows: readonly ExportRow[]): string {
  return rows.map((r) => JSON.stringify(slimeRow(r)) + '\n').join('');
}

/** What `writeExport` wrote. */
interface ExportManifest {
  format: ExportFormat;
  files: Record<RowSplit | 'design' | 'schedule', string>;
  rows: Record<RowSplit, number>;
  description: Record<RowSplit, string>;
  /** Keys every row carries for `hlab serve` (POST /v1/episodes). */
  serveKeys: string[];
  command?: string;
}

/**
 * Write `ds` into `dir` (created): {train,heldout,blackbox}.{parquet|jsonl}, design.json,
 * schedule.json, manifest.json.
 * @returns the manifest.
 */
export function writeExport(ds: ExportDataset, format: ExportFormat, dir: string, command?: string): ExportManifest {
  mkdirSync(dir, { recursive: true });
  const ext = format === 'verl' ? 'parquet' : 'jsonl';
  const splits: RowSplit[] = ['train', 'heldout', 'blackbox'];
  for (const s of splits) {
    const rows = ds[s];
    writeFileSync(join(dir, `${s}.${ext}`), format === 'verl' ? new Uint8Array(verlParquet(rows)) : slimeJsonl(rows));
  }
  writeFileSync(join(dir, 'design.json'), JSON.stringify(ds.design, null, 2) + '\n');
  writeFileSync(join(dir, 'schedule.json'), JSON.stringify(ds.schedule, null, 2) + '\n');
  const manifest: ExportManifest = {
    format,
    files: {
      train: `train.${ext}`,
      heldout: `heldout.${ext}`,
      blackbox: `blackbox.${ext}`,
      design: 'design.json',
      schedule: 'schedule.json',
    },
    rows: { train: ds.train.length, heldout: ds.heldout.length, blackbox: ds.blackbox.length },
    description: ds.description,
    serveKeys: ['suite', 'task', 'harness', 'max_turns'],
    ...(command ? { command } : {}),
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}
