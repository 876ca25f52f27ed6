export { accountDeletedEmail } from './account-deleted.ts';
export { addressInUseEmail } from './address-in-use.ts';
export { escapeHtml } from './layout.ts';
export { paymentFailedEmail } from './payment-failed.ts';
export { resetPasswordEmail } from './reset-password.ts';
export { signInLinkEmail } from './sign-in-link.ts';
export { usageAlertEmail, type UsageAlertData } from './usage-alert.ts';
export { verifyEmail } from './verify-email.ts';
