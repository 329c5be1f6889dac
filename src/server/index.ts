/** The local read-only dashboard over the results store. */
// createDashboardApp (./dashboard-app.js) is left out on purpose: it imports hono, which startDashboard loads lazily.
export {
  startDashboard,
  checkListenHost,
  isLoopback,
  DEFAULT_DASHBOARD_HOST,
  DEFAULT_DASHBOARD_PORT,
} from './start-dashboard.js';
export type { RunningDashboard, DashboardOptions } from './start-dashboard.js';
export { isUnsafePath } from './request-guard.js';
