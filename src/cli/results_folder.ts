/**
 * The result files an experiment folder holds beside spec.json: results.{json,csv,md} and
 * curves.{svg,csv}, made from one results file. `hlab run` writes them after a call and
 * `hlab merge` after joining seed chunks, so both folders read alike.
 */
import type { ExperimentSpec } from '../experiment/spec';
import { curvesSvg } from '../report/curves_svg';
import { curvesCsv, curvesMarkdown } from '../report/learning_curves';
import { markdownTable, resultsCsv, runStepsLine, segmentsText, withUnfinishedRuns, type BeforeEval } from '../report/results_markdown';
import type { ResultsFile } from '../report/results_schema';
import type { RunCurves } from '../experiment/run_events';
import { stringifyFinite } from '../util/encoding';

/**
 * results.md: the table (with an interrupted run's finished 'before' evaluations), steps per run,
 * curves, command with `timing`, machine, engine, starting checkpoints, segments and warnings.
 */
function resultsMarkdown(
  spec: Pick<ExperimentSpec, 'name' | 'description'>,
  file: ResultsFile<RunCurves>,
  timing: string,
  beforeEvals: readonly BeforeEval[],
): { md: string; table: string } {
  const table = markdownTable(file.status === 'interrupted' ? withUnfinishedRuns(file, beforeEvals) : file);
  const md = [
    `# ${spec.name}: ${spec.description}`,
    '',
    table,
    '',
    'Steps per run:',
    '',
    ...file.runs.map((r) => `- ${runStepsLine(r)}`),
    '',
    curvesMarkdown(file.curves),
    '',
    `Command: \`${file.command}\` — ${file.status}, ${timing}.`,
    `Machine: ${file.machine}.`,
    `Engine (this call, the last segment): ${file.engine.describe} (${file.engine.reason}).`,
    `Starting checkpoint: ${[...new Set(file.starts)].join('; ')}.`,
    '',
    segmentsText(file.segments),
    ...file.warnings.map((w) => `\n> ${w}`),
    '',
  ].join('\n');
  return { md, table };
}

/**
 * The folder's result files by name, and results.md's table (the console prints it).
 * @param timing how long it took, in words (e.g. '812 s wall clock (790 s in the page)')
 * @param beforeEvals 'before' evaluations of runs an interruption left unfinished
 */
export function resultsFolderFiles(
  spec: Pick<ExperimentSpec, 'name' | 'description'>,
  file: ResultsFile<RunCurves>,
  timing: string,
  beforeEvals: readonly BeforeEval[] = [],
): { files: Map<string, string>; table: string } {
  const { md, table } = resultsMarkdown(spec, file, timing, beforeEvals);
  const files = new Map([
    ['results.json', stringifyFinite(file, 2) + '\n'],
    ['results.csv', resultsCsv(file)],
    ['results.md', md],
    ['curves.svg', curvesSvg(file.curves)],
    ['curves.csv', curvesCsv(file.curves)],
  ]);
  return { files, table };
}
