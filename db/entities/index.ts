import { Account } from './account.ts';
import { ApiKey } from './api-key.ts';
import { CompanyRow } from './company.ts';
import { CreditLedgerEntry } from './credit-ledger-entry.ts';
import { DecisionMakerRow } from './decision-maker.ts';
import { EmailOutbox } from './email-outbox.ts';
import { ProductContextRow } from './product-context.ts';
import { ProspectRow } from './prospect.ts';
import { ResearchJob } from './research-job.ts';
import { UsageAlert } from './usage-alert.ts';
import { StripeEvent } from './stripe-event.ts';

export { Account, ApiKey, CompanyRow, CreditLedgerEntry, DecisionMakerRow, ProductContextRow, ProspectRow, ResearchJob, StripeEvent, EmailOutbox, UsageAlert };

export const ENTITIES = [Account, ProductContextRow, ApiKey, ResearchJob, CreditLedgerEntry, ProspectRow, CompanyRow, DecisionMakerRow, StripeEvent, EmailOutbox, UsageAlert];
