/** The analytic model: collective costs, transport terms, training steps, scaling. */
export * from './busbw.js';
export * from './nccl-tuning.js';
export * from './transport.js';
export * from './collective-shape.js';
export * from './collectives.js';
export * from './predict.js';
export * from './collective-run.js';
export * from './flops.js';
export * from './stragglers.js';
export * from './parallel-groups.js';
export * from './training-step.js';
export * from './plan.js';
export * from './transport-split.js';
export * from './explain.js';
export * from './fitted.js';
export * from './validation.js';
