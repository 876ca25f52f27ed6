/**
 * The API's copy of completed replies, as the bytes they are sent as. A
 * completed reply never changes once stored (services/research/jobs.ts
 * `completeJob`), so a copy cannot go stale; clients poll a job after it has
 * ended too, and each poll would otherwise make PostgreSQL read and send the
 * whole result again, and Node decode and re-encode it.
 *
 * Only the body is cached. Whether the caller may see it is decided by the
 * database on every request (the key, its revocation, the job's account), so
 * a copy is keyed by job id alone and is never served without that check.
 */
export class CompletedReplyCache {
  /** Insertion order is recency order: a read moves the entry to the end. */
  private readonly replies = new Map<string, Buffer>();
  private bytes = 0;
  private readonly maxBytes: number;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  get(researchId: string): Buffer | undefined {
    const reply = this.replies.get(researchId);
    if (reply) {
      this.replies.delete(researchId);
      this.replies.set(researchId, reply);
    }
    return reply;
  }

  /** Keeps the reply (evicting the least recently read ones over the limit) and returns its bytes. */
  add(researchId: string, replyJson: string): Buffer {
    const reply = Buffer.from(replyJson);
    if (reply.length > this.maxBytes || this.replies.has(researchId)) return reply;
    this.replies.set(researchId, reply);
    this.bytes += reply.length;
    for (const [oldestId, oldest] of this.replies) {
      if (this.bytes <= this.maxBytes) break;
      this.replies.delete(oldestId);
      this.bytes -= oldest.length;
    }
    return reply;
  }

  get size(): { replies: number; bytes: number } {
    return { replies: this.replies.size, bytes: this.bytes };
  }
}
