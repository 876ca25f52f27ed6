// `node scripts/first-build-current.ts`: makes this build (TEMPORAL_DEPLOYMENT_NAME,
// TEMPORAL_WORKER_BUILD_ID) the current version of its Worker Deployment when the
// Worker Deployment has none yet: after the first install, or when Worker
// Versioning was just turned on. A versioned build takes no new run until it is
// current, so without this a fresh install would run no job until someone made
// it current by hand. Once a version is current it changes nothing: each later
// build is ramped and made current by the operator (docs/deploy.md#rolling-out-a-new-image).
// The Helm chart runs it as a post-install and post-upgrade hook.
import { Connection } from '@temporalio/client';
import { ConfigError, exitOnConfigError, loadDotEnv } from '../lib/env.ts';
import { CONNECT_TIMEOUT_MS, connectAtStart, connectionOptions, loadTemporalConnection } from '../lib/temporal-connection.ts';

/** gRPC's NOT_FOUND: the Worker Deployment has never had a poller nor a current version. */
const NOT_FOUND = 5;

let settings: ReturnType<typeof loadTemporalConnection>;
let deploymentName: string;
let buildId: string;
try {
  loadDotEnv();
  settings = loadTemporalConnection(process.env);
  deploymentName = process.env.TEMPORAL_DEPLOYMENT_NAME?.trim() ?? '';
  buildId = process.env.TEMPORAL_WORKER_BUILD_ID?.trim() ?? '';
  if (!deploymentName || !buildId) throw new ConfigError(['TEMPORAL_DEPLOYMENT_NAME and TEMPORAL_WORKER_BUILD_ID are required']);
} catch (error) {
  exitOnConfigError('first-build-current', error);
}

const say = (line: string) => process.stdout.write(`${line}\n`);
let connection: Connection;
try {
  connection = await connectAtStart(settings, () => Connection.connect({ ...connectionOptions(settings), connectTimeout: CONNECT_TIMEOUT_MS }));
} catch (error) {
  exitOnConfigError('first-build-current', error);
}
try {
  const { namespace } = settings;
  let conflictToken: Uint8Array | undefined;
  try {
    const described = await connection.workflowService.describeWorkerDeployment({ namespace, deploymentName });
    const current = described.workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId;
    if (current) {
      say(`Worker Deployment ${deploymentName}: build ${current} is current; ${current === buildId ? 'nothing to do' : `make ${buildId} current when it is ready (ramp, then set-current-version)`}.`);
    } else conflictToken = described.conflictToken;
  } catch (error) {
    if ((error as { code?: number }).code !== NOT_FOUND) throw error;
    conflictToken = new Uint8Array();
  }
  if (conflictToken) {
    // No poller needs to be there yet: the build's workers may still be starting,
    // and runs wait in their task queues until they poll. The conflict token
    // refuses the change if someone made a version current meanwhile.
    await connection.workflowService.setWorkerDeploymentCurrentVersion({
      namespace,
      deploymentName,
      buildId,
      conflictToken,
      allowNoPollers: true,
      identity: `first-build-current ${buildId}`,
    });
    say(`Worker Deployment ${deploymentName}: build ${buildId} made current (it had no current version).`);
  }
} catch (error) {
  // One line, with Temporal's reason (a refused permission, a version made current meanwhile).
  process.stderr.write(`first-build-current: could not make build ${buildId} of ${deploymentName} current: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await connection.close();
}
