/**
 * The error of a context that cannot be cut to its budget. It lives below the model folder
 * (episode/rows.ts throws it when it cuts rows and rollout prompts) so that the harness layer can
 * tell it apart too: an expert episode records it as errorKind 'opening' (expert.ts).
 */

/** The opening messages alone do not fit the context budget (a configuration error, not a rollout event). */
export class ContextBudgetError extends Error {
  constructor(
    message: string,
    readonly headTokens: number,
    readonly budget: number,
  ) {
    super(message);
    this.name = 'ContextBudgetError';
  }
}
