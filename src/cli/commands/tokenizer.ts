/**
 * `hlab tokenizer`: (re)build the shipped byte-level BPE vocabulary deterministically.
 *
 *   hlab tokenizer --out public/tokenizer-v1.json --vocab 1024 --seed 0
 *
 * Trains on `generateTokenizerCorpus(seed, docs)` (src/model/tokenizer_corpus.ts, a stand-in
 * for rendered expert episodes) and reports the compression in UTF-8 bytes per token on
 * held-out documents from another seed. Same flags → byte-identical file.
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { intOption, printJson } from '../cli_util';
import { trainBpe } from '../../model/tokenizer';
import { generateTokenizerCorpus } from '../../model/tokenizer_corpus';

interface Opts {
  out: string;
  vocab: number;
  seed: number;
  docs: number;
  name?: string;
  json?: boolean;
}

export function registerTokenizer(program: Command): void {
  program
    .command('tokenizer')
    .description('train the byte-level BPE tokenizer on the stand-in harness corpus and write it as JSON')
    .option('--out <file>', 'output file', 'public/tokenizer-v1.json')
    .option('--vocab <n>', 'vocabulary size (bytes + specials + merges)', intOption(264, 1024), 1024)
    .option('--seed <n>', 'corpus and tie-breaking seed', intOption(0, 2 ** 31 - 1), 0)
    .option('--docs <n>', 'training documents', intOption(1, 1_000_000), 3000)
    .option('--name <name>', "name stored in the file (default: the output file's base name)")
    .option('--json', 'print JSON only')
    .action((opts: Opts) => {
      const name = opts.name ?? opts.out.replace(/^.*\//, '').replace(/\.json$/, '');
      const corpus = generateTokenizerCorpus(opts.seed, opts.docs);
      const tok = trainBpe(corpus, opts.vocab, opts.seed, undefined, name);
      writeFileSync(opts.out, JSON.stringify(tok.toJSON()) + '\n');
      // Held-out compression: documents from a different corpus seed.
      const held = generateTokenizerCorpus(opts.seed + 1, 200);
      let bytes = 0;
      let tokens = 0;
      for (const d of held) {
        bytes += new TextEncoder().encode(d).length;
        tokens += tok.encode(d).length;
      }
      const report = {
        out: opts.out,
        name,
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
