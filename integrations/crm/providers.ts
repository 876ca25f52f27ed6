// Each configured CRM as the services see it: its OAuth, its budget windows,
// its default lead score, the adapter for a connection, and a record's link
// for runs stored before (the one module that knows every CRM).
import { hubspotContactUrl } from '../../domain/crm/crm.ts';
import { createHubSpotAdapter, HUBSPOT_DEFAULT_SCORE_FIELD } from '../hubspot/adapter.ts';
import { hubspotBudgetWindows } from '../hubspot/budget.ts';
import { createHubSpotCrm } from '../hubspot/crm-client.ts';
import { createHubSpotOAuth } from '../hubspot/oauth.ts';
import { createPipedriveAdapter, PIPEDRIVE_DEFAULT_SCORE_FIELD, pipedrivePersonUrl } from '../pipedrive/adapter.ts';
import { pipedriveBudgetWindows } from '../pipedrive/limits.ts';
import { createPipedriveOAuth } from '../pipedrive/oauth.ts';
import { createSalesforceAdapter, salesforceRecordUrl, type SalesforceObject } from '../salesforce/adapter.ts';
import { SALESFORCE_DEFAULT_SCORE_FIELD, salesforceBudgetWindows } from '../salesforce/config.ts';
import { createSalesforceOAuth } from '../salesforce/oauth.ts';
import type { AccessTokenSource, BudgetWindow, CrmAdapter, CrmCallBudget, CrmConnectionRef, CrmOAuth, CrmProvider, OwnFieldKeyStore } from './adapter.ts';
import type { CrmConfig } from './config.ts';

export interface AdapterInput {
  connection: CrmConnectionRef;
  accessToken: AccessTokenSource;
  budget: CrmCallBudget;
  fieldKeys: OwnFieldKeyStore;
  /** The records a run reads where a CRM has more than one kind (Salesforce: Contact or Lead); null: the CRM's only one. */
  crmObject: string | null;
  /** Shorter waits for tests: each CRM's retry policy, partly overridden. */
  retry?: Record<string, number>;
}

export interface CrmProviderKit {
  provider: CrmProvider;
  oauth: CrmOAuth;
  budgetWindows: Readonly<Record<string, BudgetWindow>>;
  /** The lead score a product's settings start with; null: the CRM has none, the owner chooses one. */
  defaultScoreField: string | null;
  adapter(input: AdapterInput): CrmAdapter;
  /** A record's page in the CRM's app, from the stored connection (runs list their contacts' links). */
  recordUrl(connection: { portalId: string; apiBase: string | null }, contactId: string): string;
}

export type CrmProviderKits = Partial<Record<CrmProvider, CrmProviderKit>>;

export function crmProviderKits(config: CrmConfig): CrmProviderKits {
  const kits: CrmProviderKits = {};
  const hubspot = config.hubspot;
  if (hubspot) {
    const budgetWindows = hubspotBudgetWindows(hubspot.limits);
    kits.hubspot = {
      provider: 'hubspot',
      oauth: createHubSpotOAuth(hubspot),
      budgetWindows,
      defaultScoreField: HUBSPOT_DEFAULT_SCORE_FIELD,
      adapter: (input) =>
        createHubSpotAdapter({
          crm: createHubSpotCrm({ apiBase: hubspot.apiBase, portalId: Number(input.connection.portalId), accessToken: input.accessToken, budget: input.budget, retry: input.retry }),
          appBase: hubspot.appBase,
        }),
      recordUrl: (connection, contactId) => hubspotContactUrl(hubspot.appBase, Number(connection.portalId), contactId),
    };
  }
  const pipedrive = config.pipedrive;
  if (pipedrive) {
    kits.pipedrive = {
      provider: 'pipedrive',
      oauth: createPipedriveOAuth(pipedrive),
      budgetWindows: pipedriveBudgetWindows(pipedrive.limits.callsPer2s),
      defaultScoreField: PIPEDRIVE_DEFAULT_SCORE_FIELD,
      adapter: (input) =>
        createPipedriveAdapter({ config: pipedrive, connection: input.connection, accessToken: input.accessToken, budget: input.budget, fieldKeys: input.fieldKeys, retry: input.retry }),
      // The company's own domain (the token's api_domain) is where its people are shown.
      recordUrl: (connection, contactId) => pipedrivePersonUrl(connection.apiBase ?? pipedrive.apiBase, contactId),
    };
  }
  const salesforce = config.salesforce;
  if (salesforce) {
    kits.salesforce = {
      provider: 'salesforce',
      oauth: createSalesforceOAuth(salesforce),
      budgetWindows: salesforceBudgetWindows(salesforce),
      defaultScoreField: SALESFORCE_DEFAULT_SCORE_FIELD,
      adapter: (input) =>
        createSalesforceAdapter({
          config: salesforce, connection: input.connection, accessToken: input.accessToken, budget: input.budget, fieldKeys: input.fieldKeys,
          object: (input.crmObject ?? 'Contact') as SalesforceObject, retry: input.retry,
        }),
      // The record's own page; its object from the id's key prefix (00Q: Lead; Contact otherwise).
      recordUrl: (connection, contactId) => salesforceRecordUrl(connection.apiBase ?? '', contactId.startsWith('00Q') ? 'Lead' : 'Contact', contactId),
    };
  }
  return kits;
}
