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
 * A free-form record whose version lives in a column beside it: what the column holds until its
 * codec reads it with that version. Opaque on purpose, so no read can skip the codec.
 */
export type StoredRecord = { readonly __storedRecord: unique symbol };
