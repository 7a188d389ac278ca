/**
 * Public API of the harness design library (docs/ARCHITECTURE.md "Harness space and design"): the harness space and its ids,
 * strength-2 orthogonal arrays, training-set selection with its report, and task→harness
 * assignment with the round-robin schedule. Pure TypeScript, no DOM.
 */
export {
  BASE_HARNESS,
  DEFAULT_SPACE,
  checkLevelVector,
  configFromIndex,
  configIndex,
  describeHarness,
  enumerateSpace,
  formatHarnessId,
  hammingDistance,
  parseHarnessId,
  spaceFromLevels,
  spaceLevels,
  spaceSize,
  validateSpace,
} from './space';
export type { HarnessComponent, HarnessSpace, LevelVector, Realization } from './space';
export { GaloisField, isPrime, primePower } from './galois_field';
export { divisibilityBound, raoBound, smallestAdmissibleRunSize, verifyStrength2 } from './oa_verify';
export type { ColumnBalance, PairBalance, Runs, Strength2Report } from './oa_verify';
export { L18_TABLE, fullFactorial, l18, paley, raoHamming } from './oa_constructions';
export type { BaseArray, OaMethod } from './oa_constructions';
export { searchOrthogonalArray } from './oa_search';
export type { SearchAttempt } from './oa_search';
export { NoOrthogonalArrayError, minPairwiseDistance, orthogonalArray } from './orthogonal_array';
export type { OrthogonalArray, OrthogonalArrayOptions } from './orthogonal_array';
export { MAX_ENUMERATED_SPACE, designReport, selectTraining, selectTrainingOA, selectTrainingRandom } from './selection';
export type { DesignReport, HeldOutConfig, SelectionMethod, SelectionOptions } from './selection';
export { RoundRobinSchedule, assignHarnesses } from './assignment';
export type { AssignmentOptions, AssignmentStrategy, RoundRobinState, TaskAssignment, TaskId } from './assignment';
