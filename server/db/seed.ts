/**
 * The demo tenants and accounts (see README). Idempotent: existing rows are left as they are.
 */
import { inArray } from "drizzle-orm";
import { hashPassword } from "@/server/crypto/password";
import type { Executor } from "./client";
import { tenants, users } from "./schema";
import { type Role } from "@/server/domain";

export const DEMO_PASSWORD = "harbor";

export const DEMO_TENANTS = [
  { id: "tenant-acme", slug: "acme", name: "Acme" },
  { id: "tenant-globex", slug: "globex", name: "Globex" },
] as const;

export const DEMO_USERS: readonly { id: string; tenantId: string; email: string; name: string; role: Role }[] = [
  { id: "user-alice", tenantId: "tenant-acme", email: "alice@acme.test", name: "Alice", role: "member" },
  { id: "user-bob", tenantId: "tenant-acme", email: "bob@acme.test", name: "Bob", role: "approver" },
  { id: "user-carol", tenantId: "tenant-acme", email: "carol@acme.test", name: "Carol", role: "admin" },
  { id: "user-mallory", tenantId: "tenant-globex", email: "mallory@globex.test", name: "Mallory", role: "admin" },
];

export async function seedDemo(db: Executor): Promise<void> {
  await db
    .insert(tenants)
    .values([...DEMO_TENANTS])
    .onConflictDoNothing();
  const existing = await db
    .select({ email: users.email })
    .from(users)
    .where(
      inArray(
        users.email,
        DEMO_USERS.map((u) => u.email),
      ),
    );
  const missing = DEMO_USERS.filter((u) => !existing.some((e) => e.email === u.email));
  if (missing.length === 0) return;
  const rows = await Promise.all(missing.map(async (u) => ({ ...u, passwordHash: await hashPassword(DEMO_PASSWORD) })));
  await db.insert(users).values(rows).onConflictDoNothing();
}
