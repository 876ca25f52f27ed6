import { Client, Connection } from '@temporalio/client';
import type { Config } from './config.ts';

export async function connectTemporalClient(config: Config): Promise<Client> {
  const connection = await Connection.connect({ address: config.temporal.address });
  return new Client({ connection, namespace: config.temporal.namespace });
}
