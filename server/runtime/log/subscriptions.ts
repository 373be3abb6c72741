/**
 * Live feeds (tRPC subscriptions) hold memory and a connection for as long as they stay open: one
 * user may hold at most `perUser` of them in a process. The next is refused with
 * TOO_MANY_SUBSCRIPTIONS (429) until one closes, so one user cannot pin the server's memory.
 */
import { HarborError } from "../errors";

export class SubscriptionSlots {
  private readonly open = new Map<string, number>();

  constructor(readonly perUser: number) {}

  /**
   * Takes one of the user's slots; the returned function gives it back (once, however often it is
   * called). Given back as well when `signal` aborts, in case the feed is never read.
   */
  take(userId: string, signal?: AbortSignal): () => void {
    const held = this.open.get(userId) ?? 0;
    if (held >= this.perUser) {
      throw new HarborError(
        "TOO_MANY_SUBSCRIPTIONS",
        `At most ${this.perUser} live feeds may be open at once; close one (another tab?) first.`,
      );
    }
    this.open.set(userId, held + 1);
    let returned = false;
    const giveBack = () => {
      if (returned) return;
      returned = true;
      const left = (this.open.get(userId) ?? 1) - 1;
      if (left > 0) this.open.set(userId, left);
      else this.open.delete(userId);
    };
    signal?.addEventListener("abort", giveBack, { once: true });
    return giveBack;
  }
}
