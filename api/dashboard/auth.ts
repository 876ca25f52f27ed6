import { betterAuth, type BetterAuthOptions } from 'better-auth';
import { APIError, createAuthMiddleware, getSessionFromCtx } from 'better-auth/api';
import { magicLink } from 'better-auth/plugins/magic-link';
import type pg from 'pg';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../../domain/dashboard/schemas.ts';
import type { Mailer } from '../../integrations/mail/mailer.ts';
import { addressInUseEmail } from '../../integrations/mail/templates/address-in-use.ts';
import { resetPasswordEmail } from '../../integrations/mail/templates/reset-password.ts';
import { signInLinkEmail } from '../../integrations/mail/templates/sign-in-link.ts';
import { verifyEmail } from '../../integrations/mail/templates/verify-email.ts';
import type { Logger } from '../../lib/logger.ts';
import { agentAuthorizationPlugins } from './agent-authorization.ts';
import { COMMON_PASSWORD_MESSAGE, isCommonPassword } from '../../services/accounts/common-passwords.ts';
import type { DashboardConfig } from './config.ts';

/** The auth endpoints' prefix: better-auth is mounted inside the dashboard's JSON API. */
export const AUTH_BASE_PATH = '/app/api/auth';

/**
 * The header better-auth reads the client address from. The mount overwrites
 * it on every request (from the socket, or from the configured proxy header),
 * so a client cannot choose its own rate-limit bucket.
 */
export const CLIENT_ADDRESS_HEADER = 'x-dashboard-client-address';

/** How long a sign-in link works. */
export const SIGN_IN_LINK_MINUTES = 15;

/** The endpoints that set a password, and the body field that carries it. */
const PASSWORD_FIELDS: Record<string, string> = { '/sign-up/email': 'password', '/reset-password': 'newPassword', '/change-password': 'newPassword' };

/** What the auth layer needs from the rest of the app: accounts live in our own tables. */
export interface AccountLink {
  /** A new sign-in user gets its account: the one an operator made for that e-mail, else a new Free one. */
  linkOwner(user: { id: string; email: string }): Promise<void>;
  /** An operator-made account whose owner has never signed in: its e-mail, so a password reset can create the user. */
  hasUnclaimedAccount(email: string): Promise<boolean>;
  /** Deleted accounts (tombstones) can never sign in again. */
  isSignInRefused(userId: string): Promise<boolean>;
  /** An address some account already uses: another owner cannot change to it. */
  isAccountEmail(email: string): Promise<boolean>;
  /** The owner's confirmed new address becomes the account's (alerts, digests, deletion notice). */
  followOwnerEmail(user: { id: string; email: string }): Promise<void>;
}

export interface DashboardAuthDeps {
  pool: pg.Pool;
  config: DashboardConfig;
  mailer: Mailer;
  accounts: AccountLink;
  logger: Logger;
  /** Hosts a client ID metadata document may be fetched from on a private address (development and tests only). */
  allowedPrivateHosts?: ReadonlySet<string>;
}

/**
 * Our own tables are `account`, `api_key`, …; better-auth's are prefixed so that
 * its credential table does not collide with our accounts (one owner per account).
 */
const AUTH_TABLES = {
  user: { modelName: 'auth_user' },
  session: { modelName: 'auth_session' },
  account: { modelName: 'auth_credential' },
  verification: { modelName: 'auth_verification' },
} as const;

export function dashboardAuthOptions(deps: DashboardAuthDeps) {
  const { config, mailer, accounts, logger } = deps;
  const dashboardUrl = (path: string) => `${config.publicUrl}/app${path}`;
  return {
    appName: 'Prospect enrichment',
    baseURL: config.publicUrl,
    basePath: AUTH_BASE_PATH,
    secret: config.authSecret,
    trustedOrigins: [config.publicUrl],
    database: deps.pool,
    // The JWT plugin's session-token endpoint is not used: access tokens come from the OAuth provider only.
    disabledPaths: ['/token'],
    ...AUTH_TABLES,
    // A new address takes effect when the link sent to it is opened (better-auth's change-email verification).
    user: { ...AUTH_TABLES.user, changeEmail: { enabled: true } },
    emailAndPassword: {
      enabled: true,
      requireEmailVerification: true,
      minPasswordLength: PASSWORD_MIN_LENGTH,
      maxPasswordLength: PASSWORD_MAX_LENGTH,
      // docs/decisions.md#the-dashboard: a reset ends every other session.
      revokeSessionsOnPasswordReset: true,
      // Sign-up with a taken address answers as a new one does (no one learns who has an account); the owner gets a mail.
      onExistingUserSignUp: async ({ user }) => {
        await mailer.send(addressInUseEmail({ to: user.email, attempt: 'sign-up', signInUrl: dashboardUrl('/sign-in') }));
      },
      sendResetPassword: async ({ user, url }) => {
        await mailer.send(resetPasswordEmail({ to: user.email, url }));
      },
      // The reset link was opened from the mailbox: that proves the address.
      onPasswordReset: async ({ user }) => {
        if (!user.emailVerified) await markVerified(deps.pool, user.id);
      },
    },
    emailVerification: {
      sendOnSignUp: true,
      sendOnSignIn: true,
      autoSignInAfterVerification: true,
      sendVerificationEmail: async ({ user, url }) => {
        await mailer.send(verifyEmail({ to: user.email, url }));
      },
    },
    session: { ...AUTH_TABLES.session, expiresIn: 60 * 60 * 24 * 7, updateAge: 60 * 60 * 24 },
    rateLimit: {
      enabled: true,
      storage: 'database',
      modelName: 'auth_rate_limit',
      window: 60,
      max: 100,
      customRules: {
        '/sign-in/email': { window: 60, max: 10 },
        '/sign-up/email': { window: 60, max: 5 },
        '/request-password-reset': { window: 60, max: 5 },
        '/send-verification-email': { window: 60, max: 5 },
        '/change-email': { window: 60, max: 5 },
        '/sign-in/magic-link': { window: 60, max: 5 },
      },
    },
    advanced: {
      ipAddress: { ipAddressHeaders: [CLIENT_ADDRESS_HEADER] },
      useSecureCookies: config.publicUrl.startsWith('https://'),
      defaultCookieAttributes: { httpOnly: true, sameSite: 'lax' },
    },
    databaseHooks: {
      user: {
        create: {
          after: async (user) => accounts.linkOwner({ id: user.id, email: user.email }),
        },
        update: {
          after: async (user) => accounts.followOwnerEmail({ id: user.id, email: user.email }),
        },
      },
      session: {
        create: {
          before: async (session) => {
            if (await accounts.isSignInRefused(session.userId)) return false;
            return { data: session };
          },
        },
      },
    },
    plugins: [
      ...agentAuthorizationPlugins({ config, allowedPrivateHosts: deps.allowedPrivateHosts ?? new Set() }),
      // The owner's way in while the per-address password limit holds (api/dashboard/auth-mount.ts): a
      // link to the mailbox, which guesses from elsewhere cannot lock. Existing users only; tokens stored hashed.
      magicLink({
        disableSignUp: true,
        expiresIn: SIGN_IN_LINK_MINUTES * 60,
        storeToken: 'hashed',
        sendMagicLink: async ({ email, url }) => {
          if (!(await hasUser(deps.pool, email))) return; // the same reply either way; no mail for an address without an account
          await mailer.send(signInLinkEmail({ to: email, url, minutes: SIGN_IN_LINK_MINUTES }));
        },
      }),
    ],
    hooks: {
      before: createAuthMiddleware(async (ctx) => {
        const passwordField = PASSWORD_FIELDS[ctx.path];
        if (passwordField) refuseCommonPassword(ctx.body?.[passwordField]);
        if (ctx.path === '/change-email') return answerTakenEmail(ctx, accounts, mailer, dashboardUrl('/sign-in'));
        if (ctx.path === '/request-password-reset') await prepareClaim(accounts, ctx.context.internalAdapter, String(ctx.body?.email ?? ''));
      }),
    },
    onAPIError: { throw: false, onError: (error) => logger.warn({ err: error instanceof APIError ? error.message : error }, 'auth error') },
    telemetry: { enabled: false },
    logger: { disabled: false, level: 'warn', log: (level, message) => logger[level]({ auth: true }, message) },
  } satisfies BetterAuthOptions;
}

export function createDashboardAuth(deps: DashboardAuthDeps) {
  return betterAuth(dashboardAuthOptions(deps));
}

export type DashboardAuth = ReturnType<typeof createDashboardAuth>;

async function markVerified(pool: pg.Pool, userId: string): Promise<void> {
  await pool.query('update auth_user set "emailVerified" = true, "updatedAt" = now() where id = $1', [userId]);
}

async function hasUser(pool: pg.Pool, email: string): Promise<boolean> {
  const { rowCount } = await pool.query('select 1 from auth_user where email = $1', [email.trim().toLowerCase()]);
  return (rowCount ?? 0) > 0;
}

function refuseCommonPassword(password: unknown): void {
  if (typeof password === 'string' && isCommonPassword(password)) {
    throw new APIError('BAD_REQUEST', { code: 'PASSWORD_TOO_COMMON', message: COMMON_PASSWORD_MESSAGE });
  }
}

type AuthHookContext = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0];

/**
 * One address, one account: the owner of another account's address cannot move
 * to it. The reply is the one a free address gets (better-auth's `{ status: true }`),
 * so that this form tells no one whether an address has an account; the
 * address's owner gets a mail saying what was asked, as at sign-up.
 */
async function answerTakenEmail(ctx: AuthHookContext, accounts: AccountLink, mailer: Mailer, signInUrl: string): Promise<{ status: true } | undefined> {
  const email = String(ctx.body?.newEmail ?? '').trim().toLowerCase();
  if (!email || !(await accounts.isAccountEmail(email))) return undefined;
  // Only for a signed-in owner moving elsewhere: without a session better-auth answers 401, and "the same address" itself.
  const session = await getSessionFromCtx(ctx);
  if (!session || session.user.email.toLowerCase() === email) return undefined;
  await mailer.send(addressInUseEmail({ to: email, attempt: 'change-email', signInUrl }));
  return { status: true };
}

type InternalAdapter = Parameters<Parameters<typeof createAuthMiddleware>[0]>[0]['context']['internalAdapter'];

/**
 * An account made with the admin command has no sign-in user yet: a password
 * reset for its e-mail creates one (linked by `linkOwner`), and opening the
 * reset link proves the address.
 */
async function prepareClaim(accounts: AccountLink, users: InternalAdapter, address: string): Promise<void> {
  const email = address.trim().toLowerCase();
  if (!email || !(await accounts.hasUnclaimedAccount(email))) return;
  if (await users.findUserByEmail(email)) return;
  await users.createUser({ email, name: email, emailVerified: false }, { method: 'password-reset' } as never);
}
