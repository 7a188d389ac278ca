/**
 * `hlab tokenizer`: (re)build the shipped byte-level BPE vocabulary deterministically.
 *
 *   hlab tokenizer --vocab 1024 --seed 0                       (v2, the shipped tokenizer: public/tokenizer-v2.json)
 *   hlab tokenizer --corpus v1 --out public/tokenizer-v1.json --vocab 1024 --seed 0
 *
 * `--corpus v1` trains on `generateTokenizerCorpus(seed, docs)`
 * (src/corpus/tokenizer_v1.ts, a synthetic stand-in) and reports the compression in UTF-8
 * bytes per token on held-out documents from another seed. `--corpus v2` (default: what the app and CLI load) trains on rendered
 * expert episodes of the training and procedural harnesses (`generateTokenizerCorpusV2(seed)`,
 * src/corpus/tokenizer_v2.ts; `--docs` unused) and reports compression on test-task
 * renders under held-out and black-box harnesses (`heldOutRenderCorpus(seed)`).
 * Same flags → byte-identical file.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { choiceOption, intOption, printJson } from '../cli_util';
import { trainBpe } from '../../model/tokenizer';
import { generateTokenizerCorpus } from '../../corpus/tokenizer_v1';
import { generateTokenizerCorpusV2, heldOutRenderCorpus } from '../../corpus/tokenizer_v2';

interface Opts {
  out?: string;
  vocab: number;
  seed: number;
  docs: number;
  corpus: 'v1' | 'v2';
  name?: string;
  json?: boolean;
}

export function registerTokenizer(program: Command): void {
  program
    .command('tokenizer')
    .description('train the byte-level BPE tokenizer on the stand-in harness corpus and write it as JSON')
    .option('--out <file>', 'output file (default public/tokenizer-<corpus>.json)')
    .option('--vocab <n>', 'vocabulary size (bytes + specials + merges)', intOption(264, 1024), 1024)
    .option('--seed <n>', 'corpus and tie-breaking seed', intOption(0, 2 ** 31 - 1), 0)
    .option('--docs <n>', 'training documents (v1 corpus only)', intOption(1, 1_000_000), 3000)
    .option(
      '--corpus <v1|v2>',
      'v1: synthetic stand-in corpus; v2: rendered expert episodes (training + procedural harnesses)',
      choiceOption(['v1', 'v2'] as const),
      'v2',
    )
    .option('--name <name>', "name stored in the file (default: the output file's base name)")
    .option('--json', 'print JSON only')
    .action((opts: Opts) => {
      const out = opts.out ?? `public/tokenizer-${opts.corpus}.json`;
      const name = opts.name ?? out.replace(/^.*\//, '').replace(/\.json$/, '');
      const corpus = opts.corpus === 'v2' ? generateTokenizerCorpusV2(opts.seed) : generateTokenizerCorpus(opts.seed, opts.docs);
      const tok = trainBpe(corpus, opts.vocab, opts.seed, undefined, name);
      writeFileSync(out, JSON.stringify(tok.toJSON()) + '\n');
      // Held-out compression: v1, documents from a different corpus seed; v2, test-task renders
      // under held-out in-space and black-box harnesses.
      const held = opts.corpus === 'v2' ? heldOutRenderCorpus(opts.seed).docs : generateTokenizerCorpus(opts.seed + 1, 200);
      let bytes = 0;
      let tokens = 0;
      for (const d of held) {
        bytes += new TextEncoder().encode(d).length;
        tokens += tok.encode(d).length;
      }
      const report = {
        out,
        name,
        corpus: opts.corpus,
        vocabSize: tok.vocabSize,
        merges: tok.merges.length,
        specials: tok.specials,
        trainingBytes: corpus.reduce((s, d) => s + new TextEncoder().encode(d).length, 0),
        heldOutBytesPerToken: Number((bytes / tokens).toFixed(3)),
      };
      if (opts.json) printJson(report);
      else {
        console.log(`wrote ${report.out}: ${report.vocabSize} ids (${report.merges} merges, ${report.specials.length} specials)`);
        console.log(`trained on ${report.trainingBytes} bytes; held-out compression ${report.heldOutBytesPerToken} bytes/token`);
      }
    });
}
