import { Migration } from '@mikro-orm/migrations';

/**
 * The dashboard's accounts. better-auth keeps its users, sessions, credentials,
 * verification tokens and rate-limit counters in its own `auth_*` tables (the
 * DDL is better-auth 1.7's own, as `getMigrations` prints it; a test checks
 * that better-auth finds nothing missing). Our `account` gets its one owner,
 * and keys their last use.
 */
export class Migration20261123165000 extends Migration {
  override name = 'Migration20261123165000';

  override up(): void | Promise<void> {
    this.addSql(`create table "auth_user" ("id" text not null primary key, "name" text not null, "email" text not null unique, "emailVerified" boolean not null, "image" text, "createdAt" timestamptz default CURRENT_TIMESTAMP not null, "updatedAt" timestamptz default CURRENT_TIMESTAMP not null);`);
    this.addSql(`create table "auth_session" ("id" text not null primary key, "expiresAt" timestamptz not null, "token" text not null unique, "createdAt" timestamptz default CURRENT_TIMESTAMP not null, "updatedAt" timestamptz not null, "ipAddress" text, "userAgent" text, "userId" text not null references "auth_user" ("id") on delete cascade);`);
    this.addSql(`create table "auth_credential" ("id" text not null primary key, "accountId" text not null, "providerId" text not null, "userId" text not null references "auth_user" ("id") on delete cascade, "accessToken" text, "refreshToken" text, "idToken" text, "accessTokenExpiresAt" timestamptz, "refreshTokenExpiresAt" timestamptz, "scope" text, "password" text, "createdAt" timestamptz default CURRENT_TIMESTAMP not null, "updatedAt" timestamptz not null);`);
    this.addSql(`create table "auth_verification" ("id" text not null primary key, "identifier" text not null, "value" text not null, "expiresAt" timestamptz not null, "createdAt" timestamptz default CURRENT_TIMESTAMP not null, "updatedAt" timestamptz default CURRENT_TIMESTAMP not null);`);
    this.addSql(`create table "auth_rate_limit" ("id" text not null primary key, "key" text not null unique, "count" integer not null, "lastRequest" bigint not null);`);
    this.addSql(`create index "auth_session_userId_idx" on "auth_session" ("userId");`);
    this.addSql(`create index "auth_credential_userId_idx" on "auth_credential" ("userId");`);
    this.addSql(`create index "auth_verification_identifier_idx" on "auth_verification" ("identifier");`);
    // Sign-in attempts per e-mail address, beside better-auth's per-client limit:
    // one fixed window per address, so spreading guesses over many clients does not help.
    this.addSql(`create table "sign_in_attempt" ("email" text not null primary key, "window_start" timestamptz not null, "attempts" integer not null);`);

    this.addSql(`alter table "account" add column "owner_user_id" text null references "auth_user" ("id") on delete set null;`);
    this.addSql(`create unique index "account_owner_user_id_unique" on "account" ("owner_user_id") where "owner_user_id" is not null;`);
    this.addSql(`alter table "api_key" add column "last_used_at" timestamptz null;`);
    // The Usage page and the key list sum a cycle's credits per key.
    this.addSql(`create index "credit_ledger_entry_account_cycle_idx" on "credit_ledger_entry" ("account_id", "cycle_start") include ("research_id", "used_delta", "kind", "created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "credit_ledger_entry_account_cycle_idx";`);
    this.addSql(`alter table "api_key" drop column "last_used_at";`);
    this.addSql(`drop index "account_owner_user_id_unique";`);
    this.addSql(`alter table "account" drop column "owner_user_id";`);
    this.addSql(`drop table "sign_in_attempt";`);
    for (const table of ['auth_rate_limit', 'auth_verification', 'auth_credential', 'auth_session', 'auth_user']) this.addSql(`drop table "${table}";`);
  }
}
