import { dictionary } from '@zxcvbn-ts/language-common';

// The ~49,000 most common passwords of public breach corpora, as zxcvbn-ts
// ships them (@zxcvbn-ts/language-common, offline, kept up to date with the
// package): the first guesses of any credential-stuffing run. Lower-cased, as
// the list is, so `Password1234` is as refused as `password1234`.
let commonPasswords: Set<string> | null = null;

/** True when the password is on the list of common and breached passwords (compared without case). */
export function isCommonPassword(password: string): boolean {
  commonPasswords ??= new Set(dictionary['passwords-common']);
  return commonPasswords.has(password.toLowerCase());
}

export const COMMON_PASSWORD_MESSAGE = 'That password is on public lists of common and breached passwords, which attackers try first. Choose another.';
