/** The demo room: the built-in example's results, and the files it writes. */
export {
  runDemo,
  demoFiles,
  DEMO_FABRICS,
  DEMO_NODES,
  DEMO_REPORT_TITLE,
  type DemoResults,
  type DemoFile,
} from './demo.js';
export { DEFAULT_JOB_FILE_NAME, DEFAULT_JOB_YAML } from './default-job.js';
