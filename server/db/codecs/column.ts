/**
 * A jsonb column whose every value goes through its codec: encoded (with its version) as Drizzle
 * writes it, decoded (upcast, parsed) as Drizzle reads it. Statements written by hand encode and
 * decode at the one place they live (see queries/).
 */
import { customType } from "drizzle-orm/pg-core";
import type { Codec } from "./codec";

export const storedJsonb = <T>(name: string, codec: Codec<T>) =>
  customType<{ data: T; driverData: unknown }>({
    dataType: () => "jsonb",
    toDriver: (value) => JSON.stringify(codec.encode(value)),
    fromDriver: (value) => codec.decode(value),
  })(name);

/**
 * A stored value read only through its codec where it is needed (a checkpoint), or with the version
 * in the column beside it (a free-form record): what the column holds until then. Opaque on purpose,
 * so no read can skip the codec.
 */
export type StoredRecord = { readonly __storedRecord: unique symbol };
