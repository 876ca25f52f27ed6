import { Client, Connection } from '@temporalio/client';
import type { Config } from './config.ts';
import { CONNECT_TIMEOUT_MS, connectAtStart, connectionOptions } from './temporal-connection.ts';
import { temporalClientInterceptors } from './tracing.ts';

/**
 * gRPC waits ever longer between reconnection attempts (1 s × 1.6ⁿ, up to
 * 120 s): after a 20-second Temporal outage the next attempt came about 6 s
 * after the server was back, and the workflow starts of the jobs accepted
 * meanwhile (services/research/workflow-start-relay.ts) waited for it. One attempt a
 * second at most keeps the relay's delay near its own one-second interval.
 */
const MAX_RECONNECT_BACKOFF_MS = 1_000;

/** A bad certificate, key or address stops the caller's start-up with one line (connectAtStart). */
export async function connectTemporalClient(config: Config): Promise<Client> {
  const connection = await connectAtStart(config.temporal.connection, () =>
    Connection.connect({
      ...connectionOptions(config.temporal.connection),
      connectTimeout: CONNECT_TIMEOUT_MS,
      channelArgs: { 'grpc.initial_reconnect_backoff_ms': 250, 'grpc.max_reconnect_backoff_ms': MAX_RECONNECT_BACKOFF_MS },
    }),
  );
  // With tracing on, a workflow start carries the caller's trace (lib/tracing.ts).
  return new Client({ connection, namespace: config.temporal.namespace, interceptors: { workflow: temporalClientInterceptors() } });
}
