import { Migration } from '@mikro-orm/migrations';

/**
 * Hosted AI agents connect over OAuth (docs/mcp.md#hosted-agents-oauth): the
 * dashboard's sign-in is their authorization server. better-auth's OAuth
 * provider keeps its clients, the one resource (/mcp), consents and tokens in
 * `auth_oauth_*` tables, and the JWT plugin its signing keys in `auth_jwks`
 * (the DDL is better-auth's own, as `getMigrations` prints it; a test checks
 * that better-auth finds nothing missing).
 */
export class Migration20261130090000 extends Migration {
  override name = 'Migration20261130090000';

  override up(): void | Promise<void> {
    this.addSql(`create table "auth_jwks" ("id" text not null primary key, "publicKey" text not null, "privateKey" text not null, "createdAt" timestamptz not null, "expiresAt" timestamptz, "alg" text, "crv" text);`);
    this.addSql(`create table "auth_oauth_client" ("id" text not null primary key, "clientId" text not null unique, "clientSecret" text, "clientDiscoveryId" text, "disabled" boolean, "skipConsent" boolean, "enableEndSession" boolean, "subjectType" text, "scopes" jsonb, "clientCredentialsScopes" jsonb, "userId" text references "auth_user" ("id") on delete cascade, "createdAt" timestamptz, "updatedAt" timestamptz, "name" text, "uri" text, "icon" text, "contacts" jsonb, "tos" text, "policy" text, "softwareId" text, "softwareVersion" text, "softwareStatement" text, "redirectUris" jsonb not null, "postLogoutRedirectUris" jsonb, "backchannelLogoutUri" text, "backchannelLogoutSessionRequired" boolean, "tokenEndpointAuthMethod" text, "applicationType" text, "jwks" text, "jwksUri" text, "grantTypes" jsonb, "responseTypes" jsonb, "requirePKCE" boolean, "dpopBoundAccessTokens" boolean, "referenceId" text, "metadata" jsonb);`);
    this.addSql(`create table "auth_oauth_resource" ("id" text not null primary key, "identifier" text not null unique, "name" text not null, "accessTokenTtl" integer, "refreshTokenTtl" integer, "signingAlgorithm" text, "signingKeyId" text, "allowedScopes" jsonb, "customClaims" jsonb, "dpopBoundAccessTokensRequired" boolean, "disabled" boolean, "createdAt" timestamptz, "updatedAt" timestamptz, "policyVersion" integer, "metadata" jsonb);`);
    this.addSql(`create table "auth_oauth_client_resource" ("id" text not null primary key, "clientId" text not null references "auth_oauth_client" ("clientId") on delete cascade, "resourceId" text not null references "auth_oauth_resource" ("identifier") on delete cascade, "metadata" jsonb, "createdAt" timestamptz);`);
    this.addSql(`create table "auth_oauth_refresh_token" ("id" text not null primary key, "token" text not null unique, "clientId" text not null references "auth_oauth_client" ("clientId") on delete cascade, "sessionId" text references "auth_session" ("id") on delete set null, "userId" text not null references "auth_user" ("id") on delete cascade, "referenceId" text, "authorizationCodeId" text, "resources" jsonb, "requestedUserInfoClaims" jsonb, "expiresAt" timestamptz not null, "createdAt" timestamptz not null, "revoked" timestamptz, "rotatedAt" timestamptz, "rotationReplayResponse" text, "rotationReplayExpiresAt" timestamptz, "authTime" timestamptz, "confirmation" jsonb, "scopes" jsonb not null);`);
    this.addSql(`create table "auth_oauth_access_token" ("id" text not null primary key, "token" text not null unique, "clientId" text not null references "auth_oauth_client" ("clientId") on delete cascade, "sessionId" text references "auth_session" ("id") on delete set null, "userId" text references "auth_user" ("id") on delete cascade, "referenceId" text, "authorizationCodeId" text, "resources" jsonb, "requestedUserInfoClaims" jsonb, "refreshId" text references "auth_oauth_refresh_token" ("id") on delete cascade, "expiresAt" timestamptz not null, "createdAt" timestamptz not null, "revoked" timestamptz, "confirmation" jsonb, "scopes" jsonb not null);`);
    this.addSql(`create table "auth_oauth_consent" ("id" text not null primary key, "clientId" text not null references "auth_oauth_client" ("clientId") on delete cascade, "userId" text references "auth_user" ("id") on delete cascade, "referenceId" text, "resources" jsonb, "requestedUserInfoClaims" jsonb, "scopes" jsonb not null, "createdAt" timestamptz not null, "updatedAt" timestamptz not null);`);
    this.addSql(`create table "auth_oauth_client_assertion" ("id" text not null primary key, "expiresAt" timestamptz not null);`);
    this.addSql(`create index "auth_oauth_client_userId_idx" on "auth_oauth_client" ("userId");`);
    this.addSql(`create index "auth_oauth_client_resource_clientId_idx" on "auth_oauth_client_resource" ("clientId");`);
    this.addSql(`create index "auth_oauth_client_resource_resourceId_idx" on "auth_oauth_client_resource" ("resourceId");`);
    this.addSql(`create index "auth_oauth_refresh_token_clientId_idx" on "auth_oauth_refresh_token" ("clientId");`);
    this.addSql(`create index "auth_oauth_refresh_token_sessionId_idx" on "auth_oauth_refresh_token" ("sessionId");`);
    this.addSql(`create index "auth_oauth_refresh_token_userId_idx" on "auth_oauth_refresh_token" ("userId");`);
    this.addSql(`create index "auth_oauth_refresh_token_authorizationCodeId_idx" on "auth_oauth_refresh_token" ("authorizationCodeId");`);
    this.addSql(`create index "auth_oauth_access_token_clientId_idx" on "auth_oauth_access_token" ("clientId");`);
    this.addSql(`create index "auth_oauth_access_token_sessionId_idx" on "auth_oauth_access_token" ("sessionId");`);
    this.addSql(`create index "auth_oauth_access_token_userId_idx" on "auth_oauth_access_token" ("userId");`);
    this.addSql(`create index "auth_oauth_access_token_authorizationCodeId_idx" on "auth_oauth_access_token" ("authorizationCodeId");`);
    this.addSql(`create index "auth_oauth_access_token_refreshId_idx" on "auth_oauth_access_token" ("refreshId");`);
    this.addSql(`create index "auth_oauth_consent_clientId_idx" on "auth_oauth_consent" ("clientId");`);
    this.addSql(`create index "auth_oauth_consent_userId_idx" on "auth_oauth_consent" ("userId");`);
    this.addSql(`create unique index "auth_oauth_client_resource_clientId_resourceId_uidx" on "auth_oauth_client_resource" ("clientId", "resourceId");`);
  }

  override down(): void | Promise<void> {
    for (const table of ['auth_oauth_client_assertion', 'auth_oauth_consent', 'auth_oauth_access_token', 'auth_oauth_refresh_token', 'auth_oauth_client_resource', 'auth_oauth_resource', 'auth_oauth_client', 'auth_jwks']) this.addSql(`drop table "${table}";`);
  }
}
