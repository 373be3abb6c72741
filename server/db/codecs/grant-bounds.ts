/**
 * A standing approval's bounds, by argument name (approval_grants.bounds, and the offer in an
 * approval's detail). A record keyed by the tool's argument names: its version lives in a column
 * (`bounds_version`), never among the keys.
 */
import { z } from "zod";
import type { GrantBound, GrantBounds } from "@/server/domain";
import { storedCodec } from "./codec";

const bound = z.union([
  z.strictObject({ equals: z.union([z.string(), z.number(), z.boolean()]) }),
  z.strictObject({ atMost: z.number() }),
]) satisfies z.ZodType<GrantBound>;

export const grantBoundsSchema = z.record(z.string(), bound) satisfies z.ZodType<GrantBounds>;

export const grantBoundsCodec = storedCodec<GrantBounds>({ shape: "grant bounds", version: 1, schema: grantBoundsSchema, upcasters: {} });
