/**
 * The `hlab serve` wire protocol: request bodies and query strings (zod, strict: an unknown
 * field is an error naming it), the limits, and the JSON error every 4xx carries:
 *   { "error": "<one line>", "field": "<the bad field, or null>", "code": "<kind>" }
 * See docs/SCALE-OUT.md for the endpoints.
 */
import { z } from 'zod';

/** Server limits. Units: bytes for the body, characters (UTF-16 units) for actions, ms for time. */
export interface ServeLimits {
  /** Largest request body, bytes (default 1 MiB). */
  maxBodyBytes: number;
  /** Longest action text, characters (default 16384). */
  maxActionChars: number;
  /** Most episodes held at once, live or finished-but-not-deleted (default 1024). */
  maxEpisodes: number;
  /** Largest maxTurns an episode may ask for (default 64). */
  maxTurns: number;
  /** maxTurns of an episode that does not give one (default 16). */
  defaultMaxTurns: number;
  /** An episode untouched this long is deleted (default 10 minutes). */
  idleMs: number;
  /** Longest wait for a request body once its headers arrived, ms (default 10 s; well under the 120 s request timeout, so a stalled body frees its connection early). */
  bodyTimeoutMs: number;
  /** Most connections one client address holds open at once; one beyond gets a 429 and is closed (default 64). */
  maxConnectionsPerClient: number;
}

export const DEFAULT_LIMITS: ServeLimits = {
  maxBodyBytes: 1 << 20,
  maxActionChars: 16_384,
  maxEpisodes: 1024,
  maxTurns: 64,
  defaultMaxTurns: 16,
  idleMs: 600_000,
  bodyTimeoutMs: 10_000,
  maxConnectionsPerClient: 64,
};

/** A client error: HTTP status, the field it names (null when none) and a one-line message. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly field: string | null,
    message: string,
    readonly code = 'invalid',
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

/** Body of POST /v1/episodes. */
export function createEpisodeSchema(limits: ServeLimits) {
  return z
    .object({
      suite: z.enum(['workspace', 'errands']),
      /** A task id 'family/tN/SEED' (or 'suite/family/tN/SEED') or a bare task seed; absent: drawn with `seed`. */
      task: z.union([z.string().max(200), z.number().int().min(0)]).optional(),
      /** Composed id S0-T1-O2-C0-W1 or a black-box id. */
      harness: z.string().min(1).max(64),
      /** Seed of the task draw when `task` is absent (echoed back otherwise). */
      seed: z
        .number()
        .int()
        .min(0)
        .max(2 ** 32 - 1)
        .optional(),
      /** Split of a drawn task (default train). */
      split: z.enum(['train', 'test']).optional(),
      /** Family and tier of a bare-seed `task` (default: the suite's first family, tier 1). */
      family: z.string().min(1).max(64).optional(),
      tier: z.number().int().min(1).max(3).optional(),
      maxTurns: z.number().int().min(1).max(limits.maxTurns).optional(),
    })
    .strict();
}

/** Body of POST /v1/episodes/{id}/step. */
export function stepSchema(limits: ServeLimits) {
  return z
    .object({
      /** The policy's action text, verbatim (any string up to maxActionChars). */
      action: z.string().max(limits.maxActionChars),
      /** The engine cut the action at its token cap (the episode is truncated, reason 'action'). */
      cutOff: z.boolean().optional(),
    })
    .strict();
}

const intText = (min: number, max: number) =>
  z.string().regex(/^\d+$/, 'expected a non-negative integer').transform(Number).pipe(z.number().int().min(min).max(max));

/** Query of GET /v1/design. */
export const designQuery = z
  .object({
    method: z.enum(['oa', 'random']).default('oa'),
    k: intText(1, 243).optional(),
    seed: intText(0, 2 ** 32 - 1).default(0),
  })
  .strict();

/** Query of GET /v1/tasks. */
export const tasksQuery = z
  .object({
    suite: z.enum(['workspace', 'errands']),
    split: z.enum(['train', 'test']).default('train'),
    n: intText(0, 1000).default(20),
    seed: intText(0, 2 ** 32 - 1).default(0),
  })
  .strict();

/**
 * Validate `value` with `schema`.
 * @throws HttpError 400 naming the first bad field (dotted path; `where` for the top level).
 */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown, where: string): z.infer<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  if (issue.code === 'unrecognized_keys' && 'keys' in issue) {
    const key = (issue.keys as string[])[0];
    throw new HttpError(400, [...issue.path.map(String), key].join('.'), `unknown field '${key}'`);
  }
  const field = issue.path.length ? issue.path.map(String).join('.') : where;
  let message = issue.message;
  if (issue.code === 'invalid_value' && 'values' in issue)
    message = `expected one of ${(issue.values as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  if (issue.code === 'too_big' && field === 'action') message = `action is longer than the limit (${message})`;
  throw new HttpError(400, field, `${field}: ${message}`);
}
