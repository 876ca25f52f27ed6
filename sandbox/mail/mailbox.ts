import { z } from 'zod';

/** One message as the stand-in received it: the envelope and the parsed content. */
export interface CapturedMessage {
  id: string;
  /** Envelope sender (MAIL FROM). */
  from: string;
  /** Envelope recipients (RCPT TO), lower-cased. */
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** The Message-ID header, as sent. */
  messageId: string | null;
  /** When the stand-in accepted it, ISO 8601. */
  date: string;
}

/**
 * Fault injection for RCPT TO (tests and trying the outbox by hand):
 * `reject` answers every recipient with 550 until switched off; `rejectNext`
 * answers the next N with 550; `deferNext` the next N with 451 (a temporary refusal);
 * `rejectTo` answers 550 to these addresses only (mailboxes that do not exist).
 */
export const ZMailFaults = z.strictObject({
  reject: z.boolean().optional(),
  rejectNext: z.number().int().min(0).max(10_000).optional(),
  deferNext: z.number().int().min(0).max(10_000).optional(),
  rejectTo: z.array(z.string().trim().toLowerCase()).max(1_000).optional(),
});
export type MailFaults = z.infer<typeof ZMailFaults>;

export type RcptVerdict = 'accept' | 'reject' | 'defer';

const MAILBOX_SIZE = 1_000;

/** The stand-in's state: what arrived, what was refused, and the faults still to play. */
export function createMailbox() {
  let messages: CapturedMessage[] = [];
  let faults = { reject: false, rejectNext: 0, deferNext: 0, rejectTo: [] as string[] };
  let refused = 0;
  let sequence = 0;

  return {
    add(message: Omit<CapturedMessage, 'id'>): CapturedMessage {
      sequence += 1;
      const captured = { id: String(sequence), ...message };
      messages.push(captured);
      if (messages.length > MAILBOX_SIZE) messages = messages.slice(-MAILBOX_SIZE);
      return captured;
    },
    /** Newest first; `to` keeps the messages one of whose recipients is that address. */
    list(to?: string): CapturedMessage[] {
      const wanted = to?.trim().toLowerCase();
      const found = wanted ? messages.filter((message) => message.to.includes(wanted)) : messages;
      return [...found].reverse();
    },
    get(id: string): CapturedMessage | undefined {
      return messages.find((message) => message.id === id);
    },
    clear(): void {
      messages = [];
    },
    setFaults(next: MailFaults) {
      faults = { ...faults, ...next };
      return { ...faults };
    },
    faults: () => ({ ...faults }),
    /** Decides one RCPT TO, consuming a counted fault. */
    verdictForRecipient(address: string): RcptVerdict {
      let verdict: RcptVerdict = 'accept';
      if (faults.reject || faults.rejectTo.includes(address.toLowerCase())) verdict = 'reject';
      else if (faults.rejectNext > 0) {
        faults.rejectNext -= 1;
        verdict = 'reject';
      } else if (faults.deferNext > 0) {
        faults.deferNext -= 1;
        verdict = 'defer';
      }
      if (verdict !== 'accept') refused += 1;
      return verdict;
    },
    stats: () => ({ received: sequence, stored: messages.length, refused }),
  };
}

export type Mailbox = ReturnType<typeof createMailbox>;
