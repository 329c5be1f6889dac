export * from './errors.js';
export * from './units.js';
export * from './rng.js';
export * from './stats.js';
export * from './envelope.js';
export * from './atomic-write.js';
