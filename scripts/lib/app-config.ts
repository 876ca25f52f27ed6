// Every settings parser of the API and the worker, run by `npm run dev` before
// it starts anything: a bad value then stops it with one line naming the
// variable (lib/env.ts), before a single service is up. A new config module
// adds its parser here.
import { loadDashboardConfig } from '../../api/dashboard/config.ts';
import { createAiConfig } from '../../integrations/ai/ai-config.ts';
import { loadMailConfig } from '../../integrations/mail/config.ts';
import { createProviderConfig } from '../../integrations/providers/config.ts';
import { loadStripeConfig } from '../../integrations/stripe/config.ts';
import { loadApiConfig, type Config } from '../../lib/config.ts';
import type { Env } from '../../lib/env.ts';

/** `npm run dev` provides these itself when they are unset. */
const PROVIDED_BY_DEV = { DATABASE_URL: 'postgres://placeholder@127.0.0.1:1/placeholder' };

/** Parses every setting; throws the ConfigError of the first module with a bad value. */
export function checkAppConfiguration(env: Env, apiUrl: string): Config {
  const withProvided = { ...PROVIDED_BY_DEV, ...Object.fromEntries(Object.entries(env).filter(([, value]) => value?.trim())) };
  const config = loadApiConfig(withProvided);
  createProviderConfig(withProvided);
  createAiConfig(withProvided);
  loadMailConfig(withProvided);
  loadStripeConfig(withProvided);
  loadDashboardConfig(withProvided, apiUrl);
  return config;
}
