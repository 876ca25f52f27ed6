export class WebhookVerificationError extends Error {
    constructor(message) {
        super(message);
        this.name = 'WebhookVerificationError';
    }
}
function header(headers, name) {
    if (typeof headers.get === 'function')
        return headers.get(name);
    const record = headers;
    const key = Object.keys(record).find((each) => each.toLowerCase() === name);
    const value = key === undefined ? undefined : record[key];
    return Array.isArray(value) ? (value[0] ?? null) : (value ?? null);
}
const TOLERANCE_SECONDS = 5 * 60;
/**
 * Verifies a delivery per Standard Webhooks: HMAC-SHA256 over
 * `webhook-id.webhook-timestamp.body` with the endpoint's `whsec_…` secret,
 * any of the space-separated `v1,…` signatures (two during a rotation),
 * timestamp within 5 minutes. Pass the raw body, exactly as received.
 * Returns the parsed event; throws WebhookVerificationError.
 */
export async function verifyWebhook(headers, body, secret, options = {}) {
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    const signatures = header(headers, 'webhook-signature');
    if (!id || !timestamp || !signatures)
        throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
    const seconds = Number(timestamp);
    const now = Math.floor((options.now ?? new Date()).getTime() / 1000);
    if (!Number.isInteger(seconds))
        throw new WebhookVerificationError('invalid webhook-timestamp');
    if (Math.abs(now - seconds) > TOLERANCE_SECONDS)
        throw new WebhookVerificationError('webhook-timestamp too old or too new');
    const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
    const keyBytes = base64ToBytes(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret);
    const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    const expected = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${text}`)));
    const matches = signatures.split(' ').some((entry) => {
        const [version, signature] = entry.split(',', 2);
        return version === 'v1' && signature !== undefined && constantTimeEqual(base64ToBytes(signature), expected);
    });
    if (!matches)
        throw new WebhookVerificationError('no matching signature');
    return JSON.parse(text);
}
function base64ToBytes(value) {
    try {
        const binary = atob(value);
        const bytes = new Uint8Array(binary.length);
        for (let i = 0; i < binary.length; i += 1)
            bytes[i] = binary.charCodeAt(i);
        return bytes;
    }
    catch {
        return new Uint8Array(0);
    }
}
function constantTimeEqual(a, b) {
    if (a.length !== b.length)
        return false;
    let difference = 0;
    for (let i = 0; i < a.length; i += 1)
        difference |= a[i] ^ b[i];
    return difference === 0;
}
