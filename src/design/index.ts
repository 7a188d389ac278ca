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
export {
  L18_TABLE,
  NoOrthogonalArrayError,
  divisibilityBound,
  fullFactorial,
  l18,
  minPairwiseDistance,
  orthogonalArray,
  paley,
  raoBound,
  raoHamming,
  searchOrthogonalArray,
  smallestAdmissibleRunSize,
  verifyStrength2,
} from './orthogonal_array';
export type {
  BaseArray,
  ColumnBalance,
  OaMethod,
  OrthogonalArray,
  OrthogonalArrayOptions,
  PairBalance,
  Runs,
  SearchAttempt,
  Strength2Report,
} from './orthogonal_array';
export { MAX_ENUMERATED_SPACE, designReport, selectTraining, selectTrainingOA, selectTrainingRandom } from './selection';
export type { DesignReport, HeldOutConfig, SelectionMethod, SelectionOptions } from './selection';
export { RoundRobinSchedule, assignHarnesses } from './assignment';
export type { AssignmentOptions, AssignmentStrategy, RoundRobinState, TaskAssignment, TaskId } from './assignment';
