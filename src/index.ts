/** The library API: every command's engine, callable without the CLI. */
export * from './core/index.js';
export { VERSION } from './version.js';
