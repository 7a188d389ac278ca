/**
 * Public API of the harness design library (docs/ARCHITECTURE.md "Harness space and design"): the harness space and its ids,
 * strength-2 orthogonal arrays, training-set selection with its report, and task→harness
 * assignment with the round-robin schedule. Pure TypeScript, no DOM.
 */
export {
  BASE_HARNESS,
  DEFAULT_SPACE,
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
export type { HarnessSpace } from './space';
export { GaloisField, primePower } from './galois_field';
export { divisibilityBound, raoBound, smallestAdmissibleRunSize, verifyStrength2 } from './oa_verify';
export { L18_TABLE, l18, paley, raoHamming } from './oa_constructions';
export { searchOrthogonalArray } from './oa_search';
export { NoOrthogonalArrayError, orthogonalArray } from './orthogonal_array';
export { MAX_ENUMERATED_SPACE, selectBalancedSubset, selectTraining, selectTrainingOA, selectTrainingRandom } from './selection';
export type { DesignReport, SelectionMethod } from './selection';
export { RoundRobinSchedule, assignHarnesses } from './assignment';
export type { AssignmentStrategy, RoundRobinState, TaskAssignment } from './assignment';
