import { TRPCError } from "@trpc/server";

/** The tRPC code a call was refused with (fails the test when it was not refused by tRPC). */
export async function codeOf(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof TRPCError)) throw new Error(`expected a TRPCError, got ${String(error)}`);
  return error.code;
}
