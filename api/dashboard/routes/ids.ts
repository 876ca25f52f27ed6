import { AppError } from '../../../domain/errors.ts';

const MAX_ID = 2_147_483_647;

/** A numeric path id; a malformed one is 404 exactly like an unknown or another account's (docs/decisions.md#the-dashboard). */
export function idParam(value: string | undefined, what: string): number {
  const id = /^[1-9][0-9]{0,9}$/.test(value ?? '') ? Number(value) : NaN;
  if (!Number.isSafeInteger(id) || id > MAX_ID) throw new AppError('not_found', `No such ${what}.`);
  return id;
}
