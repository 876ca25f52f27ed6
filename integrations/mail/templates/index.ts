export { accountDeletedEmail } from './account-deleted.ts';
export { escapeHtml } from './layout.ts';
export { paymentFailedEmail } from './payment-failed.ts';
export { resetPasswordEmail } from './reset-password.ts';
export { usageAlertEmail, type UsageAlertData } from './usage-alert.ts';
export { verifyEmail } from './verify-email.ts';
