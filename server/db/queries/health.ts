/** The readiness probe's statement: the database answers at all. */
import { sql } from "drizzle-orm";
import type { Executor } from "../client";

export async function ping(db: Executor): Promise<void> {
  await db.execute(sql`select 1`);
}
