/**
 * The embedded experiment presets (public/presets/*.json), validated at load (docs/ARCHITECTURE.md "Experiments, evaluation and results").
 */
import lesson from '../../public/presets/lesson.json';
import quick from '../../public/presets/quick.json';
import main from '../../public/presets/main.json';
import algorithms from '../../public/presets/algorithms.json';
import blackbox from '../../public/presets/blackbox.json';
import selection from '../../public/presets/selection.json';
import assignment from '../../public/presets/assignment.json';
import diversity from '../../public/presets/diversity.json';
import retention from '../../public/presets/retention.json';
import harnessCount from '../../public/presets/harness-count.json';
import sizes from '../../public/presets/sizes.json';
import mapBroad60 from '../../public/presets/map-broad-60.json';
import mapBroad240 from '../../public/presets/map-broad-240.json';
import mapNarrow60 from '../../public/presets/map-narrow-60.json';
import mapNarrow240 from '../../public/presets/map-narrow-240.json';
import mapBaseOnly60 from '../../public/presets/map-base-only-60.json';
import mapBaseOnly240 from '../../public/presets/map-base-only-240.json';
import { parseSpec, type ExperimentSpec } from './spec';

const RAW: Record<string, unknown> = {
  lesson,
  quick,
  main,
  algorithms,
  blackbox,
  selection,
  assignment,
  diversity,
  retention,
  'harness-count': harnessCount,
  sizes,
  'map-broad-60': mapBroad60,
  'map-broad-240': mapBroad240,
  'map-narrow-60': mapNarrow60,
  'map-narrow-240': mapNarrow240,
  'map-base-only-60': mapBaseOnly60,
  'map-base-only-240': mapBaseOnly240,
};

/** Preset names, the CLI's default first. */
export const PRESET_NAMES = [
  'quick',
  'lesson',
  'main',
  'algorithms',
  'blackbox',
  'selection',
  'assignment',
  'diversity',
  'retention',
  'harness-count',
  'sizes',
  'map-broad-60',
  'map-broad-240',
  'map-narrow-60',
  'map-narrow-240',
  'map-base-only-60',
  'map-base-only-240',
] as const;
type PresetName = (typeof PRESET_NAMES)[number];
/** The CLI's default (`npm start`). */
export const DEFAULT_PRESET: PresetName = 'quick';
/** The app's default: the lesson, one seed of the map cell where harness scaling pays (docs/APP.md). */
export const APP_DEFAULT_PRESET: PresetName = 'lesson';

/**
 * A preset by name, validated.
 * @throws Error naming the unknown preset and the allowed ones; SpecError if a preset file is invalid.
 */
export function getPreset(name: string): ExperimentSpec {
  if (!(name in RAW)) throw new Error(`unknown preset '${name}': expected one of ${PRESET_NAMES.join(', ')}`);
  return parseSpec(structuredClone(RAW[name]), `preset ${name}`);
}
