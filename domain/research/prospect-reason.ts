import type { EmailClassification } from './email-classification.ts';

/**
 * Why `data.prospect` carries no person (`_meta.prospect.reason`): informational,
 * as all of `_meta` (docs/api.md#_meta), so that a caller can tell "this address names
 * no person" from "no source knew this person".
 */
export const PROSPECT_REASONS = ['free_mail', 'disposable', 'role_address', 'not_found', 'providers_unavailable'] as const;
export type ProspectReason = (typeof PROSPECT_REASONS)[number];

export function prospectReason(
  address: Pick<EmailClassification, 'isFreeMail' | 'isDisposable' | 'isRoleBased'>,
  lookup: { isFound: boolean; wasAnswered: boolean },
): ProspectReason | null {
  if (lookup.isFound) return null;
  // The address explains the miss before the providers do: a disposable or shared mailbox names no one.
  if (address.isDisposable) return 'disposable';
  if (address.isRoleBased) return 'role_address';
  if (address.isFreeMail) return 'free_mail';
  return lookup.wasAnswered ? 'not_found' : 'providers_unavailable';
}
