import { api } from './api-client.ts';

// better-auth's endpoints under /app/api/auth, called directly: the dashboard
// needs a few of them, and a plain fetch keeps the sign-in page small.
const appUrl = (path: string) => `${window.location.origin}/app${path}`;

export const auth = {
  signUp: (email: string, password: string) =>
    api('/auth/sign-up/email', { body: { email, password, name: email, callbackURL: appUrl('/verified') } }),
  /**
   * With an agent's signed authorization request (`oauthQuery`), the OAuth provider resumes it once the session
   * exists and answers where the browser goes next (the consent page, or back to an agent already allowed).
   */
  signIn: (email: string, password: string, oauthQuery?: string | null) =>
    api<{ redirect?: boolean; url?: string }>('/auth/sign-in/email', { body: { email, password, rememberMe: true, ...(oauthQuery ? { oauth_query: oauthQuery } : {}) } }),
  /**
   * A one-time link to the mailbox: the way in while the per-address password limit holds. `resumePath` (an
   * agent's authorization request) is where the link lands instead of the API keys page.
   */
  requestSignInLink: (email: string, resumePath?: string | null) =>
    api('/auth/sign-in/magic-link', {
      body: { email, callbackURL: resumePath ? `${window.location.origin}${resumePath}` : appUrl('/keys'), errorCallbackURL: appUrl('/sign-in?link=expired') },
    }),
  signOut: () => api('/auth/sign-out', { body: {} }),
  resendVerification: (email: string) => api('/auth/send-verification-email', { body: { email, callbackURL: appUrl('/verified') } }),
  requestPasswordReset: (email: string) => api('/auth/request-password-reset', { body: { email, redirectTo: appUrl('/reset-password') } }),
  resetPassword: (token: string, newPassword: string) => api('/auth/reset-password', { body: { token, newPassword } }),
  changeEmail: (newEmail: string) => api('/auth/change-email', { body: { newEmail, callbackURL: appUrl('/preferences') } }),
};
