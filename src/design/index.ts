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
  spaceSize,
} from './space';
export type { HarnessSpace } from './space';
export { NoOrthogonalArrayError } from './orthogonal_array';
export { MAX_ENUMERATED_SPACE, selectBalancedSubset, selectTraining, selectTrainingOA, selectTrainingRandom } from './selection';
export type { DesignReport, SelectionMethod } from './selection';
export { RoundRobinSchedule, assignHarnesses } from './assignment';
export type { AssignmentStrategy, RoundRobinState, TaskAssignment } from './assignment';
