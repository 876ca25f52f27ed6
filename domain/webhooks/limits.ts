/**
 * First attempts to one endpoint under way at once, across every webhooks
 * process (WEBHOOK_ATTEMPTS_PER_ENDPOINT). Eight: a burst of one account's
 * job ends to a slow receiver (up to 15 s an attempt) then holds at most eight
 * of a dispatcher's 64 slots, so every other endpoint's deliveries still go
 * out at once, and a receiver that answers in 100 ms still gets 80 a second.
 */
export const DEFAULT_ATTEMPTS_PER_ENDPOINT = 8;
