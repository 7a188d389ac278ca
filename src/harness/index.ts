/**
 * The harness runtime (docs/ARCHITECTURE.md "Harness runtime", "Sandbox, tasks and behaviour tags", "Rows and trajectories"): the 15 realizations, composed and black-box
 * harnesses, the episode loop, behaviour tags and the expert driver.
 */
export * from './types';
export * from './render';
export * from './tools';
export * from './tags';
export * from './base';
export * from './composed';
export * from './registry';
export * from './episode';
export * from './expert';
export * from './sandbox_port';
export * from './realizations/system';
export * from './realizations/tool_interface';
export * from './realizations/observation';
export * from './realizations/context';
export * from './realizations/workflow';
export { CODING_CLI_ID } from './blackbox/coding_cli';
export { ASSISTANT_ID } from './blackbox/assistant';
