/**
 * `hlab merge DIR... --out DIR`: join the folders of one experiment run in seed chunks
 * (`hlab run --seeds …`, e.g. a long map cell spread over several sessions) into one folder that
 * reads as if every seed had run in one call: spec.json with the union of the seeds,
 * results.{json,csv,md} and curves.{svg,csv} (src/report/merge_results.ts says why that is sound).
 * Bad input (a missing folder or file, an unreadable results.json, an unfinished chunk, specs that
 * differ beyond seeds, a seed in two chunks) exits 2 with one line naming the folder and field;
 * nothing is written then.
 */
import type { Command } from 'commander';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { hlabCommand, UsageError } from '../cli_util';
import { readUserFile } from '../user_file';
import { writeAtomic } from '../atomic_write';
import { resultsFolderFiles } from '../results_folder';
import { experimentTime } from '../../report/results_markdown';
import { MergeError, mergeResults, type ResultsChunk } from '../../report/merge_results';
import { ResultsFileSchema, type ResultsFile } from '../../report/results_schema';
import { upgradeResultsFile } from '../../report/results_upgrade';
import type { RunCurves } from '../../experiment/run_events';
import { nullsToNaN } from '../../util/encoding';

/** A chunk folder's spec.json and results.json. @throws UsageError naming the folder and file */
function readChunk(dir: string): ResultsChunk<RunCurves> {
  const json = (name: string): unknown => {
    const path = join(dir, name);
    try {
      return JSON.parse(new TextDecoder().decode(readUserFile(dir, path)));
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`${path}: ${(e as Error).message.split('\n')[0]}`);
    }
  };
  const specJson = json('spec.json');
  const parsed = ResultsFileSchema.safeParse(upgradeResultsFile(json('results.json')));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`${join(dir, 'results.json')}: ${issue.path.join('.')}: ${issue.message}`);
  }
  const file = parsed.data as unknown as ResultsFile<RunCurves>;
  return { where: dir, specJson, file: { ...file, curves: file.curves.map(nullsToNaN) } };
}

export function registerMerge(program: Command): void {
  program
    .command('merge')
    .description(
      'join the folders of one experiment run in seed chunks (hlab run --seeds) into one folder: spec.json with every seed, results.{json,csv,md}, curves.{svg,csv}',
    )
    .argument('<dirs...>', 'chunk folders, each holding spec.json and a finished results.json')
    .requiredOption('--out <dir>', 'folder to write (created; its result files are replaced)')
    .action((dirs: string[], opts: { out: string }) => {
      const out = resolve(opts.out);
      if (dirs.some((d) => resolve(d) === out)) throw new UsageError(`--out ${opts.out}: is one of the chunk folders; write elsewhere`);
      const chunks = dirs.map(readChunk);
      let merged: ReturnType<typeof mergeResults<RunCurves>>;
      try {
        merged = mergeResults(chunks, hlabCommand(process.argv.slice(2)));
      } catch (e) {
        if (e instanceof MergeError) throw new UsageError(e.message);
        throw e;
      }
      const { specJson, file } = merged;
      const spec = { name: String(specJson.name), description: String(specJson.description ?? '') };
      const timing = `${experimentTime(file.seconds, file.runs, "the chunks' last calls")}, ${chunks.length} chunks (${dirs.join(', ')})`;
      const { files, table } = resultsFolderFiles(spec, file, timing);
      mkdirSync(out, { recursive: true });
      writeAtomic(join(out, 'spec.json'), JSON.stringify(specJson, null, 2) + '\n');
      for (const [name, data] of files) writeAtomic(join(out, name), data);
      process.stdout.write(
        `${table}\n\nmerged ${file.runs.length} runs of seeds [${(specJson.seeds as number[]).join(', ')}] into ${out}\n`,
      );
    });
}
