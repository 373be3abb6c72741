import { describe, expect, it } from "vitest";
import { confirms, largeTransferAmount } from "@/components/decisions/confirmation";

describe("the typed confirmation of a large transfer", () => {
  it("is asked from 1,000 on, whatever the currency, and only for a transfer's arguments", () => {
    expect(largeTransferAmount({ tool: { name: "transfer_funds", args: { amount: 2500, currency: "EUR", to: "X" } } })).toEqual({
      amount: 2500,
      currency: "EUR",
    });
    expect(largeTransferAmount({ tool: { name: "transfer_funds", args: { amount: 999, currency: "EUR", to: "X" } } })).toBeNull();
    expect(largeTransferAmount({ tool: { name: "send_email", args: { to: "a@b.c", body: "2500" } } })).toBeNull();
    expect(largeTransferAmount({ tool: null })).toBeNull();
  });

  it("accepts the amount with or without separators and currency, or the word approve; nothing else", () => {
    for (const typed of ["2500", "2,500", "2 500", "2500 EUR", "€2,500", " Approve "]) expect(confirms(typed, 2500)).toBe(true);
    for (const typed of ["", "250", "25000", "yes", "2500.5"]) expect(confirms(typed, 2500)).toBe(false);
  });
});
