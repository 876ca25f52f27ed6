// `npm run build`: the dashboard's production files into dashboard/dist, which
// the API serves at /app (DASHBOARD_MODE=dist, the default once built).
import { buildDashboard } from './lib/dashboard-build.ts';

await buildDashboard();
process.stderr.write('Built dashboard/dist.\n');
