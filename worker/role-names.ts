import { ConfigError } from '../lib/env.ts';

/**
 * The worker roles (docs/operations.md#processes). Each polls only its own
 * task queues, so each scales on its own: research (research jobs and the
 * lists' runs), CRM runs, webhook deliveries, and housekeeping (sweeps, the
 * purge, the mail outbox, and the relays that start what a crashed API did
 * not). A process runs one role, or several where one machine is enough.
 */
export const WORKER_ROLES = ['research', 'crm', 'webhooks', 'housekeeping'] as const;
export type WorkerRole = (typeof WORKER_ROLES)[number];

/** `research`, `crm,webhooks` or `all`; an unknown name stops the process at start. */
export function parseWorkerRoles(value: string | undefined): WorkerRole[] {
  const names = (value?.trim() || 'all').split(',').map((name) => name.trim()).filter(Boolean);
  if (names.includes('all')) return [...WORKER_ROLES];
  const unknown = names.filter((name) => !(WORKER_ROLES as readonly string[]).includes(name));
  if (unknown.length > 0) {
    throw new ConfigError([`WORKER_ROLES: unknown role ${unknown.map((name) => `"${name}"`).join(', ')} (one or more of ${WORKER_ROLES.join(', ')}, or all)`]);
  }
  return [...new Set(names)] as WorkerRole[];
}
