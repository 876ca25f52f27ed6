import { customAlphabet } from 'nanoid';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// nanoid draws from a CSPRNG without modulo bias.
const researchSuffix = customAlphabet(BASE62, 24);
const apiKeySecret = customAlphabet(BASE62, 42);

export const API_KEY_PREFIX = 'svc_live_';
export const API_KEY_PATTERN = /^svc_live_[0-9A-Za-z]{42}$/;

/** `res_` + 24 base62 characters (~143 bits); also the Temporal workflow id. */
export function newResearchId(): string {
  return `res_${researchSuffix()}`;
}

/** docs/api.md#authentication: `svc_live_` followed by 42 random characters (~250 bits). */
export function newApiKey(): string {
  return `${API_KEY_PREFIX}${apiKeySecret()}`;
}
