/**
 * SFT on the CPU for the tests: the reference trainer (sft.ts refSftTrainer) over prepareSft's
 * rows, for the base model (demonstrations under the mix) and the black-box baseline.
 */
import type { Tokenizer } from '../../../src/model/tokenizer';
import {
  prepareSft,
  refSftTrainer,
  trainSft,
  type DemoSet,
  type SftConfig,
  type SftProgress,
  type SftResult,
} from '../../../src/pretrain/sft';

/** The base model on the CPU (tests, Node): demonstrations under `cfg.mix`. */
export async function pretrainBaseCpu(
  tok: Tokenizer,
  cfg: Omit<SftConfig, 'blackbox'>,
  onProgress?: (p: SftProgress) => void,
): Promise<SftResult & { demos: DemoSet }> {
  const p = prepareSft(tok, { ...cfg, blackbox: null });
  const r = await trainSft(p.rows, p.cfg, refSftTrainer(p.cfg.model, p.init, p.cfg), tok.padId, onProgress);
  return { ...r, demos: p.demos };
}

/** The black-box SFT baseline on the CPU: demonstrations through `cfg.blackbox` (default 'bb-coding-cli'). */
export async function sftBlackboxCpu(
  tok: Tokenizer,
  cfg: Omit<SftConfig, 'blackbox'> & { blackbox?: string },
  onProgress?: (p: SftProgress) => void,
): Promise<SftResult & { demos: DemoSet }> {
  const p = prepareSft(tok, { ...cfg, blackbox: cfg.blackbox ?? 'bb-coding-cli' });
  const r = await trainSft(p.rows, p.cfg, refSftTrainer(p.cfg.model, p.init, p.cfg), tok.padId, onProgress);
  return { ...r, demos: p.demos };
}
