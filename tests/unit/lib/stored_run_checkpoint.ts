/**
 * A run checkpoint as the store hands it back: each JSON slot of the metadata through JSON text
 * (key order not kept; NaN and ±Infinity come back as null), the manifest version 1, the tensors
 * as saved. What a resume decodes.
 */
import type { encodeRunCheckpoint } from '../../../src/experiment/run_checkpoint';
import type { CheckpointMeta, JsonValue } from '../../../src/storage/serialize';

type Encoded = ReturnType<typeof encodeRunCheckpoint>;

/** `input` as the store returns it (module doc). */
export function storedRunCheckpoint(input: Encoded): { meta: CheckpointMeta; tensors: Encoded['tensors'] } {
  const j = (v: JsonValue) => JSON.parse(JSON.stringify(v)) as JsonValue;
  const m = input.meta;
  return {
    meta: {
      ...m,
      config: j(m.config),
      rngStates: j(m.rngStates),
      scheduleState: j(m.scheduleState),
      metricHistory: j(m.metricHistory),
      schemaVersion: 1,
    },
    tensors: input.tensors,
  };
}
