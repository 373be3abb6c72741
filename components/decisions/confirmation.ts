import type { InteractionView } from "@/components/trpc/types";

/**
 * Transfers of this amount or more — in any currency, no conversion — ask the approver to type a
 * confirmation (the amount, or the word "approve") before the approval is sent. A safety net against
 * a slipped key or click on a large payment, not an authorization rule: the server decides who may
 * approve; this only asks for a second, deliberate look.
 */
export const LARGE_TRANSFER_THRESHOLD = 1_000;

/** The word that always confirms, besides the amount itself. */
export const CONFIRM_WORD = "approve";

/** The amount to type when `interaction` is a large transfer; null when a plain confirmation will do. */
export function largeTransferAmount(interaction: Pick<InteractionView, "tool">): { amount: number; currency: string } | null {
  const args = interaction.tool?.args;
  if (!args || typeof args.amount !== "number" || typeof args.currency !== "string") return null;
  return args.amount >= LARGE_TRANSFER_THRESHOLD ? { amount: args.amount, currency: args.currency } : null;
}

/** Whether `typed` confirms `amount`: "approve" (any case), or the amount with or without separators and currency. */
export function confirms(typed: string, amount: number): boolean {
  const value = typed.trim().toLowerCase();
  if (value === CONFIRM_WORD) return true;
  const digits = value.replace(/[a-z$€£\s,_']/g, "");
  return digits !== "" && Number(digits) === amount;
}
